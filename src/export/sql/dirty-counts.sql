-- How many documents this export renders (x_dirty_keys) of how many it publishes (x_keys).
SELECT (SELECT count(*) FROM x_dirty_keys) AS dirty, (SELECT count(*) FROM x_keys) AS keys
