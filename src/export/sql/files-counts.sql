-- What the release holds (x_files): files, how each got there, and the bytes
-- actually written (reused and kept files cost none).
SELECT count(*) AS files,
  count(*) FILTER (how = 'written') AS written,
  count(*) FILTER (how = 'reused') AS reused,
  count(*) FILTER (how = 'kept') AS kept,
  coalesce(sum(size) FILTER (how = 'written'), 0) AS bytes
FROM x_files;
