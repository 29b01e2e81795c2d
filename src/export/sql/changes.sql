-- x_changes: how this release's files (x_files) differ from the previous
-- release's (x_prev_manifest): added, changed and removed. manifest.json and
-- changes.json are not compared (every release has its own).
CREATE OR REPLACE TEMP TABLE x_changes AS
WITH now AS (SELECT path, size, sha256 FROM x_files WHERE path NOT IN ('manifest.json', 'changes.json')),
     before AS (SELECT path, size, sha256 FROM x_prev_manifest WHERE path NOT IN ('manifest.json', 'changes.json'))
SELECT 'added' AS change, path, size, sha256 FROM now ANTI JOIN before USING (path)
UNION ALL SELECT 'changed', n.path, n.size, n.sha256 FROM now n JOIN before b USING (path) WHERE n.sha256 <> b.sha256 OR n.size <> b.size
UNION ALL SELECT 'removed', path, size, sha256 FROM before ANTI JOIN now USING (path);
