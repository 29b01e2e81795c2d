-- Per kind of document, its documents once this export's are merged into
-- the index (the previous release's, but those recorded again or gone, and
-- those recorded: docs-index-apply.sql), and its keys ($1, key-counts.sql
-- as JSON [{kind, n}]): equal once every document is recorded. The
-- documents recorded again are those x_docs found in the index (previous),
-- and every gone one came from it: counting them needs no lookup of
-- every document in the index (0.1 s at x10).
WITH previous AS (
  SELECT kind, count(*) AS n FROM x_prev_docs GROUP BY kind
), dropped AS (
  SELECT kind, count(*) AS n FROM (
    SELECT kind FROM x_docs WHERE previous
    UNION ALL SELECT kind FROM x_gone_docs ANTI JOIN x_docs USING (kind, q)
  ) GROUP BY kind
), recorded AS (
  SELECT kind, count(*) AS n FROM x_docs GROUP BY kind
), keys AS (
  SELECT unnest(from_json($1, '[{"kind": "VARCHAR", "n": "BIGINT"}]'), recursive := true)
)
SELECT k.kind, coalesce(p.n, 0) - coalesce(d.n, 0) + coalesce(r.n, 0) AS docs, k.n AS keys
FROM keys k LEFT JOIN previous p USING (kind) LEFT JOIN dropped d USING (kind) LEFT JOIN recorded r USING (kind)
ORDER BY k.kind
