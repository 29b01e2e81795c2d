-- a_recommendations: the `recommendations` object (docs/api.md) as one JSON document.
-- Best amounts: the exact amounts used most often (at least {{best_amount_min_count}} times).
-- Wait: the {{wait_quantile}} quantile of the block gaps of links at confidence >=
-- {{high_confidence}} (waiting longer than most round trips that were still caught),
-- never below {{min_wait_blocks}} blocks (about 1.75 days). The wait is stated once, in one
-- figure: the note says recommended_wait_blocks and recommended_wait_hours as they are.
CREATE OR REPLACE TEMP TABLE a_recommendations AS
WITH best AS (
  SELECT side, list({'amount': (amount / {{litoshi_per_coin}})::DECIMAL(18, 8)::DOUBLE, 'anonymity_set': count} ORDER BY count DESC, amount) AS amounts
  FROM (
    SELECT side, amount, count, row_number() OVER (PARTITION BY side ORDER BY count DESC, amount) AS pos
    FROM a_amounts WHERE count >= {{best_amount_min_count}}
  ) WHERE pos <= {{best_amounts}}
  GROUP BY side
), gaps AS (
  SELECT count(*) AS n, quantile_disc(block_gap, {{wait_quantile}}) AS p90 FROM a_links WHERE confidence >= {{high_confidence}}
), wait AS (
  SELECT n, blocks, round(blocks * {{block_seconds}} / 3600.0, 1) AS hours
  FROM (SELECT n, greatest({{min_wait_blocks}}, coalesce(p90, 0)) AS blocks FROM gaps)
)
SELECT {
  'best_pegin_amounts': coalesce((SELECT amounts FROM best WHERE side = 'pegin'), []),
  'best_pegout_amounts': coalesce((SELECT amounts FROM best WHERE side = 'pegout'), []),
  'recommended_wait_blocks': blocks,
  'recommended_wait_hours': hours,
  'notes': [
    'Peg in one of the common amounts above, exactly: a unique amount is easy to single out.',
    'Do not peg out the amount you pegged in minus fees; a peg-out a few thousand litoshi below a peg-in is the strongest link signal.',
    printf('Wait at least %d blocks (about %g hours) before pegging out; %s.', blocks, hours,
      CASE WHEN n = 0 THEN 'no confident links were observed yet, so this is the minimum'
           ELSE printf('%d%% of the %d links found at confidence >= {{high_confidence}} had a gap no longer than that',
                        round(100 * {{wait_quantile}})::INTEGER, n) END),
    'Peg out to a fresh address, never to an address that funded a peg-in.',
    'Links are inferences from public data, not proof.'
  ]
}::JSON AS doc
FROM wait;
