-- Keys per kind (x_keys): what chooses each kind's range prefix length.
SELECT kind, count(*) AS n FROM x_keys GROUP BY kind
