-- a_recommendations: the SPEC `recommendations` object as one JSON document.
-- Best amounts: the exact amounts used most often (at least twice).
-- Wait: the 90th percentile block gap of links at confidence >= 0.9 (waiting
-- longer than most round trips that were still caught), never below
-- {{min_wait_blocks}} blocks (about 1.75 days).
CREATE OR REPLACE TEMP TABLE a_recommendations AS
WITH best AS (
  SELECT side, list({'amount': (amount / 1e8)::DECIMAL(18, 8)::DOUBLE, 'anonymity_set': count} ORDER BY count DESC, amount) AS amounts
  FROM (
    SELECT side, amount, count, row_number() OVER (PARTITION BY side ORDER BY count DESC, amount) AS pos
    FROM a_amounts WHERE count >= 2
  ) WHERE pos <= {{best_amounts}}
  GROUP BY side
), gaps AS (
  SELECT count(*) AS n, quantile_disc(block_gap, 0.9) AS p90 FROM a_links WHERE confidence >= 0.9
), wait AS (
  SELECT n, p90, greatest({{min_wait_blocks}}, coalesce(p90, 0)) AS blocks FROM gaps
)
SELECT {
  'best_pegin_amounts': coalesce((SELECT amounts FROM best WHERE side = 'pegin'), []),
  'best_pegout_amounts': coalesce((SELECT amounts FROM best WHERE side = 'pegout'), []),
  'recommended_wait_blocks': blocks,
  'recommended_wait_hours': round(blocks * {{block_seconds}} / 3600.0, 1),
  'notes': [
    'Peg in one of the common amounts above, exactly: a unique amount is easy to single out.',
    'Do not peg out the amount you pegged in minus fees; a peg-out a few thousand litoshi below a peg-in is the strongest link signal.',
    printf('Wait at least %d blocks (about %.1f hours) before pegging out; %s.', blocks, blocks * {{block_seconds}} / 3600.0,
      CASE WHEN n = 0 THEN 'no confident links were observed yet, so this is the minimum'
           ELSE printf('90%% of the %d links found at confidence >= 0.9 had a gap of %d blocks or less', n, p90) END),
    'Peg out to a fresh address, never to an address that funded a peg-in.',
    'Links are inferences from public data, not proof.'
  ]
}::JSON AS doc
FROM wait;
