-- Every block DuckDB rendered also by hash (a hard link to the file by
-- height), as x_files rows. $1 = kind ('block'), $2 = its directory. Only a
-- 64-hex hash becomes a file name.
SELECT $2 || '/' || hash || '.json', file_size, file_sha256, stamp_height, stamp_time, $1, q
FROM x_fetch
WHERE file IS NOT NULL AND regexp_full_match(hash, '[0-9a-f]{64}')
