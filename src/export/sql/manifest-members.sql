-- manifest.json's file members: one `"path":{"size","sha256","stamp"?}` line
-- per file of x_files in path order (n), each but the last followed by a
-- comma; `stamp` is the index of the file's stamp in x_stamps.
SELECT to_json(f.path)::VARCHAR || ':{"size":' || f.size || ',"sha256":"' || f.sha256 || '"'
    || coalesce(',"stamp":' || s.i, '') || '}'
    || CASE WHEN row_number() OVER w < count(*) OVER () THEN ',' ELSE '' END AS line,
  row_number() OVER w AS n
FROM x_files f
LEFT JOIN x_stamps s ON s.height = f.stamp_height AND s.time = f.stamp_time
WINDOW w AS (ORDER BY f.path)
