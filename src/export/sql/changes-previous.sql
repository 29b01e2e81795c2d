-- x_prev_manifest: the previous release's files (path, size, sha256) from its
-- manifest ($1), read line by line: one `"path":{"size","sha256"…}` member
-- per line, as manifest-members.sql writes them.
CREATE OR REPLACE TEMP TABLE x_prev_manifest AS
SELECT json_extract_string(m.path, '$') AS path, m.size::BIGINT AS size, m.sha256
FROM (
  SELECT regexp_extract(line, '^("(?:[^"\\]|\\.)*"):\{"size":(\d+),"sha256":"([0-9a-f]{64})"', ['path', 'size', 'sha256']) AS m
  FROM read_csv($1, columns = {'line': 'VARCHAR'}, header = false, delim = '\x01', quote = '', escape = '', auto_detect = false)
) WHERE m.path <> '';
