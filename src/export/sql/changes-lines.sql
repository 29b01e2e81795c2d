-- changes.json's body lines after its head: "added", "changed" and "removed",
-- each an object of `"path":{"size","sha256"}` members (a removed file's are
-- the previous release's), one member per line in path order (n).
WITH sections AS (SELECT * FROM (VALUES (0, 'added'), (1, 'changed'), (2, 'removed')) t(i, change)),
members AS (
  SELECT change, path, size, sha256,
    row_number() OVER (PARTITION BY change ORDER BY path) AS r, count(*) OVER (PARTITION BY change) AS total
  FROM x_changes
), lines AS (
  SELECT 2 * i AS k, 0 AS r, CASE i WHEN 0 THEN '' ELSE '},' END || '"' || change || '":{' AS line FROM sections
  UNION ALL
  SELECT 2 * s.i + 1, m.r,
    to_json(m.path)::VARCHAR || ':{"size":' || m.size || ',"sha256":"' || m.sha256 || '"}' || CASE WHEN m.r < m.total THEN ',' ELSE '' END
  FROM members m JOIN sections s USING (change)
  UNION ALL SELECT 6, 0, '}'
)
SELECT line, row_number() OVER (ORDER BY k, r) AS n FROM lines
