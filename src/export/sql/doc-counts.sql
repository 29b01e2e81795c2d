-- Per kind of document (x_keys), its documents once this export's are merged
-- into the index (the previous release's but those recorded again or gone,
-- and those recorded: docs-index-apply.sql), and its keys: equal once every
-- document is recorded.
WITH replaced AS (
  SELECT kind, q FROM x_docs UNION SELECT kind, q FROM x_gone_docs
), previous AS (
  SELECT kind, count(*) AS n FROM x_prev_docs GROUP BY kind
), dropped AS (
  SELECT kind, count(*) AS n FROM x_prev_docs SEMI JOIN replaced USING (kind, q) GROUP BY kind
), recorded AS (
  SELECT kind, count(*) AS n FROM x_docs GROUP BY kind
), keys AS (
  SELECT kind, count(*) AS n FROM x_keys GROUP BY kind
)
SELECT k.kind, coalesce(p.n, 0) - coalesce(d.n, 0) + coalesce(r.n, 0) AS docs, k.n AS keys
FROM keys k LEFT JOIN previous p USING (kind) LEFT JOIN dropped d USING (kind) LEFT JOIN recorded r USING (kind)
ORDER BY k.kind
