-- Series `pegin_amounts` (api/series/pegin_amounts.json): how many peg-ins
-- (up to the analysed height) fall in each logarithmic amount bucket, ten
-- buckets per decade: bucket k holds amounts of 10^(k/10) to 10^((k+1)/10)
-- litoshi (edges printed as coin amounts rounded to 8 decimals). Only buckets
-- with peg-ins are listed, so there are at most 160 (1 litoshi to 84M coin).
-- `popular`: the ten most common exact amounts, which the chart marks.
-- Needs coin_json (macros.sql) and the analysed_* views (analysed.sql).
WITH buckets AS (
  -- The small epsilon puts exact powers of ten in the bucket they open despite log10 rounding.
  SELECT floor(log10(amount) * 10 + 1e-9)::INTEGER AS k, count(*) AS n
  FROM analysed_pegins WHERE amount > 0 GROUP BY ALL
), popular AS (
  SELECT amount, count(*) AS n FROM analysed_pegins GROUP BY amount
  ORDER BY n DESC, amount LIMIT 10
)
SELECT json_object(
  'name', 'pegin_amounts', 'buckets_per_decade', 10,
  'low', coalesce((SELECT list(coin_json(round(10 ** (k / 10))::BIGINT) ORDER BY k) FROM buckets), []::JSON[]),
  'high', coalesce((SELECT list(coin_json(round(10 ** ((k + 1) / 10))::BIGINT) ORDER BY k) FROM buckets), []::JSON[]),
  'count', coalesce((SELECT list(n ORDER BY k) FROM buckets), []),
  'popular', coalesce((SELECT list(json_object('amount', coin_json(amount), 'count', n) ORDER BY n DESC, amount) FROM popular), []::JSON[])
)::VARCHAR AS body;
