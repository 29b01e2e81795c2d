-- The state's attribution index: what this release shows of each address (x_attr_now, peg-digests.sql).
SELECT * FROM x_attr_now ORDER BY address
