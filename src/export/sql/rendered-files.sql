-- The main files DuckDB rendered (x_fetch.file), as x_files rows (path, size,
-- sha256, stamp_height, stamp_time, kind, q). $1 = kind, $2 = the keys refused
-- as file names (a JSON array), $3 = the kind's directory.
SELECT $3 || '/' || q || '.json', file_size, file_sha256, stamp_height, stamp_time, $1, q
FROM x_fetch
WHERE file IS NOT NULL AND NOT list_contains(from_json($2, '["VARCHAR"]'), q)
