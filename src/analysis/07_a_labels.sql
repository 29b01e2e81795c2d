-- a_labels: curated labels plus mining-pool labels derived from coinbase payouts.
-- A coinbase payout address that mined at least {{pool_min_blocks}} blocks is a
-- pool; its entity is the most frequent readable coinbase tag (confidence
-- {{pool_tagged_confidence}}), "unnamed pool" when it never tagged ({{pool_untagged_confidence}}).
-- A curated label of the same address takes precedence.
CREATE OR REPLACE TEMP TABLE a_labels AS
WITH tagged AS (
  SELECT coinbase_address AS address,
         nullif(trim(regexp_extract(coalesce(coinbase_tag, ''), '[A-Za-z][A-Za-z0-9 ._-]{2,}')), '') AS tag,
         count(*) AS blocks
  FROM blocks
  WHERE coinbase_address IS NOT NULL AND height <= {{as_of_height}}
  GROUP BY ALL
), pools AS (
  SELECT address, arg_max(tag, blocks) FILTER (WHERE tag IS NOT NULL) AS tag, sum(blocks) AS blocks
  FROM tagged GROUP BY address
)
SELECT address, coalesce(tag, 'unnamed pool') AS entity, 'pool' AS category,
       CASE WHEN tag IS NULL THEN {{pool_untagged_confidence}} ELSE {{pool_tagged_confidence}} END AS confidence, 'coinbase' AS source
FROM pools
WHERE blocks >= {{pool_min_blocks}} AND address NOT IN (SELECT address FROM labels)
UNION ALL
SELECT address, entity, category, confidence, source FROM labels;
