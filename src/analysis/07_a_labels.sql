-- a_labels: every label the analysis uses, with its provenance (docs/labels.md):
-- the imported labels; pool labels of the imported pool lists' coinbase tags
-- (the payout address of every block whose coinbase carries a list's tag,
-- case-insensitively, confidence {{pool_tagged_confidence}}); and pool labels
-- derived from coinbase payouts alone: a payout address that mined at least
-- {{pool_min_blocks}} blocks is a pool, its entity the most frequent readable
-- coinbase tag (confidence {{pool_tagged_confidence}}), "unnamed pool" when it
-- never tagged ({{pool_untagged_confidence}}). A label of a source outranks the
-- derived one of the same address; a list's own listed address, its tag match.
CREATE OR REPLACE TEMP TABLE a_labels AS
WITH payouts AS (
  SELECT coinbase_address AS address, coinbase_tag AS tag, count(*) AS blocks
  FROM blocks
  WHERE coinbase_address IS NOT NULL AND height <= {{as_of_height}}
  GROUP BY ALL
), tag_matches AS (
  SELECT p.address, t.pool, t.tag, t.source_key, t.source, t.terms, t.imported_at, sum(p.blocks) AS blocks
  FROM payouts p JOIN label_pool_tags t ON contains(lower(p.tag), lower(t.tag))
  GROUP BY ALL
), listed AS (
  SELECT address, entity, category, confidence, source, source_kind, terms, details, imported_at FROM labels
), tagged_pools AS (
  SELECT m.address, m.pool AS entity, 'pool' AS category, {{pool_tagged_confidence}} AS confidence, m.source, 'pools' AS source_kind, m.terms,
         'coinbase tag ' || m.tag AS details, m.imported_at
  FROM tag_matches m
  ANTI JOIN labels l ON l.address = m.address AND l.source_kind = 'pools' AND l.source_key = m.source_key
  QUALIFY row_number() OVER (PARTITION BY m.address, m.source_key ORDER BY m.blocks DESC, m.pool, m.tag) = 1
), named AS (
  SELECT address, nullif(trim(regexp_extract(coalesce(tag, ''), '[A-Za-z][A-Za-z0-9 ._-]{2,}')), '') AS tag, sum(blocks) AS blocks
  FROM payouts GROUP BY ALL
), derived_pools AS (
  SELECT address, arg_max(tag, blocks) FILTER (WHERE tag IS NOT NULL) AS tag, sum(blocks) AS blocks
  FROM named GROUP BY address
)
SELECT * FROM listed
UNION ALL
SELECT * FROM tagged_pools
UNION ALL
SELECT address, coalesce(tag, 'unnamed pool') AS entity, 'pool' AS category,
       CASE WHEN tag IS NULL THEN {{pool_untagged_confidence}} ELSE {{pool_tagged_confidence}} END AS confidence,
       'coinbase' AS source, 'coinbase' AS source_kind, NULL AS terms, 'derived from coinbase payouts' AS details, NULL AS imported_at
FROM derived_pools
WHERE blocks >= {{pool_min_blocks}}
  AND address NOT IN (SELECT address FROM listed) AND address NOT IN (SELECT address FROM tagged_pools);
