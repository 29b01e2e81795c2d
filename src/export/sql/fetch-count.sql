-- How many documents of the kind in x_fetch are to be written.
SELECT count(*) AS n FROM x_fetch
