-- How many dirty keys x_range_keys holds: what decides the number of render batches.
SELECT count(*) AS n FROM x_range_keys
