-- The shard files of the wallet's signed index (docs/verifying.md): per range
-- kind, its range files grouped by shard, the first max(1, L - 2) hex digits
-- of their prefix; each shard's text is the compact JSON
-- {"kind","shard","ranges":{"<prefix>":"<sha256>",…}} in prefix order, as
-- JSON.stringify writes it. Range files are the x_files rows of kind
-- 'range:<kind>', q their prefix.
WITH ranges AS (
  SELECT substr(kind, 7) AS kind, q AS prefix, sha256, substr(q, 1, greatest(1, length(q) - 2)) AS shard
  FROM x_files WHERE kind LIKE 'range:%'
)
SELECT kind, shard,
  '{"kind":' || to_json(kind)::VARCHAR || ',"shard":' || to_json(shard)::VARCHAR || ',"ranges":{'
    || string_agg(to_json(prefix)::VARCHAR || ':' || to_json(sha256)::VARCHAR, ',' ORDER BY prefix) || '}}' AS text
FROM ranges
GROUP BY kind, shard
ORDER BY kind, shard
