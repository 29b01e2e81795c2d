-- Per kind of document, its documents once this export's are merged into
-- the index (the previous release's but those recorded again or gone, and
-- those recorded: docs-index-apply.sql), and its keys ($1, key-counts.sql
-- as JSON [{kind, n}]): equal once every document is recorded.
WITH replaced AS (
  SELECT kind, q FROM x_docs UNION SELECT kind, q FROM x_gone_docs
), kept AS (
  SELECT kind, count(*) AS n FROM x_prev_docs ANTI JOIN replaced USING (kind, q) GROUP BY kind
), recorded AS (
  SELECT kind, count(*) AS n FROM x_docs GROUP BY kind
), keys AS (
  SELECT unnest(from_json($1, '[{"kind": "VARCHAR", "n": "BIGINT"}]'), recursive := true)
)
SELECT k.kind, coalesce(p.n, 0) + coalesce(r.n, 0) AS docs, k.n AS keys
FROM keys k LEFT JOIN kept p USING (kind) LEFT JOIN recorded r USING (kind)
ORDER BY k.kind
