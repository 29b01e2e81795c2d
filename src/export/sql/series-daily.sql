-- Series `daily` (api/series/daily.json): one point per UTC day that has MWEB
-- blocks: the MWEB supply (HogEx vout[0]) at
-- the day's last block, and the day's peg-ins and peg-outs (count, amount).
-- Needs coin_json (macros.sql) and the analysed_* views (analysed.sql). Columns are arrays in day order, ready to plot.
WITH days AS (
  SELECT time // 86400 * 86400 AS day, max(height) AS height, arg_max(supply, height) AS supply
  FROM analysed_blocks WHERE supply IS NOT NULL GROUP BY ALL
), pegins_by_day AS (
  SELECT block_time // 86400 * 86400 AS day, count(*) AS n, sum(amount) AS amount
  FROM analysed_pegins GROUP BY ALL
), pegouts_by_day AS (
  SELECT block_time // 86400 * 86400 AS day, count(*) AS n, sum(amount) AS amount
  FROM analysed_pegouts GROUP BY ALL
), points AS (
  SELECT d.day, d.height, d.supply,
    coalesce(i.n, 0) AS pegin_count, coalesce(i.amount, 0)::BIGINT AS pegin_amount,
    coalesce(o.n, 0) AS pegout_count, coalesce(o.amount, 0)::BIGINT AS pegout_amount
  FROM days d LEFT JOIN pegins_by_day i USING (day) LEFT JOIN pegouts_by_day o USING (day)
)
SELECT json_object(
  'name', 'daily', 'interval', 'day',
  'day', coalesce(list(day ORDER BY day), []),
  'height', coalesce(list(height ORDER BY day), []),
  'supply', coalesce(list(coin_json(supply) ORDER BY day), []::JSON[]),
  'pegin_count', coalesce(list(pegin_count ORDER BY day), []),
  'pegin_amount', coalesce(list(coin_json(pegin_amount) ORDER BY day), []::JSON[]),
  'pegout_count', coalesce(list(pegout_count ORDER BY day), []),
  'pegout_amount', coalesce(list(coin_json(pegout_amount) ORDER BY day), []::JSON[])
)::VARCHAR AS body
FROM points;
