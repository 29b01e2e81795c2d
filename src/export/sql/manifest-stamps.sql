-- x_stamps: the analyses (height, time) the release's documents were last
-- changed by, in order; i is a stamp's index in the manifest's `stamps`.
CREATE OR REPLACE TEMP TABLE x_stamps AS
SELECT height, time, row_number() OVER (ORDER BY height, time) - 1 AS i
FROM (SELECT DISTINCT stamp_height AS height, stamp_time AS time FROM x_files WHERE stamp_height IS NOT NULL);
