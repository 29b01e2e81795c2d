-- How many documents this export renders (x_dirty_keys).
SELECT count(*) AS dirty FROM x_dirty_keys
