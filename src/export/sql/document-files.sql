-- The files of per-query documents the release holds so far (x_files rows
-- with a kind): how many were written, and how many carried over unchanged
-- (hard-linked from the previous release, or kept in a recycled one).
SELECT count(*) FILTER (how = 'written') AS written, count(*) FILTER (how <> 'written') AS carried
FROM x_files WHERE kind IS NOT NULL
