-- a_links: round-trip links (peg-in → later peg-out of the same amount minus MWEB fees).
-- Heuristic and every constant: docs/methodology.md "Round-trip links".
-- A peg-out's candidates are the peg-ins in its window [A, A + tol] in the
-- {{horizon_blocks}} blocks before it (the horizon, docs/methodology.md), counted exactly
-- by box-count.ts (w_pegout_windows); only windows of at most {{max_join}} such peg-ins
-- are expanded into pairs. 100,000 peg-ins of exactly 1.0 never meet 100,000
-- peg-outs just below it.
-- Expansion: peg-ins are cut into height buckets of {{horizon_blocks}} blocks and ranked
-- by (bucket, amount), so a window's peg-ins lie in two ranges of ranks (the
-- buckets of its first and last block), an equi-join on rank filtered by
-- height. Ranking by amount alone expanded every peg-in of the amount range
-- in the whole chain: 18× the pairs kept at the x10 preset.
-- Among one peg-out's candidates of equal block gap (one height, so one
-- bucket), rk orders by amount, txid, vout: the tie-break of reported links.
-- The pair pipeline carries integer ids only (peg-in rank rk, peg-out id orid);
-- txids and addresses are joined back for the reported rows at the end.
-- Only peg-outs at or above {{relink_from}} get their links here (every one in a
-- full run; analyze.ts carries the others over from the previous analysis).
-- Their candidates' other exits (competitors, shares) reach back to peg-outs
-- H blocks lower, whose windows reach H blocks lower still: peg-ins from
-- {{relink_from}} − 2H on are all the pairs need.
CREATE OR REPLACE TEMP TABLE w_pegin_ranked AS
SELECT txid, vout, height, amount, height // {{horizon_blocks}} AS bucket,
       row_number() OVER (ORDER BY height // {{horizon_blocks}}, amount, height, txid, vout) AS rk,
       count(*) OVER (PARTITION BY amount ORDER BY height
                      RANGE BETWEEN {{horizon_blocks}} PRECEDING AND {{horizon_blocks}} FOLLOWING) AS exact_count
FROM w_pegins
WHERE height >= {{relink_from}} - 2 * {{horizon_blocks}};

-- Per bucket: the last rk at or below each distinct amount, and
-- (amount -1) the last one before the bucket, so every lookup finds a row.
CREATE OR REPLACE TEMP TABLE w_pegin_cum AS
SELECT bucket, amount, max(rk) AS cum FROM w_pegin_ranked GROUP BY bucket, amount
UNION ALL
SELECT bucket, -1 AS amount, min(rk) - 1 AS cum FROM w_pegin_ranked GROUP BY bucket;

CREATE OR REPLACE TEMP TABLE w_windows AS
SELECT o.orid, o.height, o.amount, o.bucket, lo.cum AS below, hi.cum - lo.cum AS bucket_count
FROM (SELECT DISTINCT orid, height, amount, unnest([greatest(height - {{horizon_blocks}}, 0) // {{horizon_blocks}}, (height - 1) // {{horizon_blocks}}]) AS bucket,
             amount - 1 AS lo_key, amount + {{tol}} AS hi_key
      FROM w_pegout_ids JOIN w_pegout_windows USING (orid)
      WHERE window_count BETWEEN 1 AND {{max_join}}) o
ASOF JOIN w_pegin_cum lo ON o.bucket = lo.bucket AND o.lo_key >= lo.amount
ASOF JOIN w_pegin_cum hi ON o.bucket = hi.bucket AND o.hi_key >= hi.amount;

CREATE OR REPLACE TEMP TABLE w_pairs AS
SELECT w.orid, p.rk, p.exact_count,
       w.height AS pegout_height, w.amount AS pegout_amount, p.height AS pegin_height, p.amount AS pegin_amount,
       p.amount - w.amount AS amount_diff, w.height - p.height AS block_gap,
       least({{horizon_blocks}}, w.height - (SELECT first_height FROM w_horizon) + 1) AS horizon
FROM (SELECT orid, height, amount, unnest(range(below + 1, below + bucket_count + 1)) AS rk
      FROM w_windows WHERE bucket_count > 0) w
JOIN (SELECT rk, height, amount, exact_count FROM w_pegin_ranked) p ON p.rk = w.rk
WHERE p.height < w.height AND p.height >= w.height - {{horizon_blocks}};

-- Density (per litoshi) of the fee-rate part of a peg-out kernel fee:
-- e = rate × output size ({{output_bytes_min}}..{{output_bytes_max}} bytes), rate ~ Pareto-like with scale {{rate_scale}} litoshi/vB.
CREATE OR REPLACE TEMP MACRO w_rate_density(e) AS
  CASE WHEN e < {{output_bytes_min}} THEN 0.0
       ELSE (1.0 / {{rate_scale}}) / pow(1 + (e / {{output_bytes_avg}}) / {{rate_scale}}, 2) / {{output_bytes_avg}} END;

-- Density of a round trip's amount difference: peg-in kernel + peg-out kernel
-- ({{round_trip_fee}}) + rate part, plus {{hop_kernel_fee}} per extra MWEB hop (k = 0..3 with
-- priors hop_prior_k), mixed with {{fee_other}} spread evenly over the window (other wallets, other fees).
CREATE OR REPLACE TEMP MACRO w_fee_density(d) AS
  (1 - {{fee_other}}) * ({{hop_prior_0}} * w_rate_density(d - {{round_trip_fee}})
                       + {{hop_prior_1}} * w_rate_density(d - {{round_trip_fee}} - 1 * {{hop_kernel_fee}})
                       + {{hop_prior_2}} * w_rate_density(d - {{round_trip_fee}} - 2 * {{hop_kernel_fee}})
                       + {{hop_prior_3}} * w_rate_density(d - {{round_trip_fee}} - 3 * {{hop_kernel_fee}}))
  + {{fee_other}} / {{tol}};

-- Density of a round trip's block gap g >= 1 over h blocks (the horizon, or the chain's MWEB history when shorter): ∝ 1 / (g + g0).
CREATE OR REPLACE TEMP MACRO w_gap_density(g, h) AS
  1.0 / ((g + {{gap_g0}}) * ln((greatest(h, g) + {{gap_g0}}) / (1 + {{gap_g0}})));

-- weight = prior × fee density × gap density / background density, the
-- background being the window's peg-ins spread evenly over amount and time.
CREATE OR REPLACE TEMP TABLE w_scored AS
WITH counted AS (
  SELECT *, count(*) OVER (PARTITION BY orid) AS candidate_count
  FROM w_pairs
), weighted AS (
  SELECT *,
    {{prior}} * w_fee_density(amount_diff) * w_gap_density(block_gap, horizon)
      * {{tol}} * horizon / candidate_count AS weight
  FROM counted
), shares AS (
  SELECT *,
    count(*) OVER (PARTITION BY rk) - 1 AS competitor_count,
    sum(weight) OVER (PARTITION BY orid) AS pegout_total,
    sum(weight) OVER (PARTITION BY rk) AS pegin_total
  FROM weighted
)
SELECT *,
  weight / ((1 - {{prior}}) + pegout_total) AS pegout_share,
  weight / ((1 - {{prior}}) + pegin_total) AS pegin_share,
  weight / ((1 - {{prior}}) + pegout_total + pegin_total - weight) AS confidence
FROM shares;

CREATE OR REPLACE TEMP TABLE a_links AS
WITH reportable AS (
  SELECT *, row_number() OVER (PARTITION BY orid ORDER BY confidence DESC, block_gap, rk) AS pos
  FROM w_scored
  WHERE candidate_count <= {{max_candidates}} AND exact_count < {{common_exact}}
)
SELECT o.txid AS pegout_txid, o.vout AS pegout_vout, pegout_height, pegout_amount, o.address AS pegout_address,
  p.txid AS pegin_txid, p.vout AS pegin_vout, pegin_height, pegin_amount, amount_diff, block_gap,
  candidate_count, competitor_count, round(confidence, 4) AS confidence,
  [
    printf('amount difference %d litoshi: %s', amount_diff,
      CASE WHEN amount_diff BETWEEN {{fee_band_direct_min}} AND {{fee_band_direct_max}}
             THEN 'fits a direct round trip (peg-in kernel {{pegin_kernel_fee}} + peg-out kernel {{pegout_kernel_fee}} + fee rate × {{output_bytes_min}}..{{output_bytes_max}} bytes)'
           WHEN amount_diff BETWEEN {{fee_band_hop_min}} AND {{fee_band_hop_max}} THEN 'fits a round trip with one extra MWEB hop (+{{hop_kernel_fee}})'
           WHEN amount_diff BETWEEN {{fee_band_hops_min}} AND {{fee_band_hops_max}} THEN 'fits a round trip with two or three extra MWEB hops'
           WHEN amount_diff < {{fee_band_direct_min}} THEN 'below the smallest MWEB round-trip fee ({{fee_band_direct_min}}): weak evidence'
           ELSE 'larger than usual MWEB fees: weak evidence' END),
    printf('%d candidate peg-in(s) in the window [%s, %s]', candidate_count,
      (pegout_amount / {{litoshi_per_coin}})::DECIMAL(18, 8)::VARCHAR, ((pegout_amount + {{tol}}) / {{litoshi_per_coin}})::DECIMAL(18, 8)::VARCHAR),
    printf('%d competing peg-out(s) could also be this peg-in''s exit', competitor_count),
    printf('block gap %d (about %.1f hours)', block_gap, block_gap * {{block_seconds}} / 3600.0),
    printf('weight %.3g against a none-of-these weight of %.2f: share %.3f among this peg-out''s candidates, %.3f among this peg-in''s exits',
      weight, 1 - {{prior}}, pegout_share, pegin_share)
  ] AS reasons
FROM reportable r
JOIN w_pegout_ids o USING (orid)
JOIN w_pegin_ranked p USING (rk)
WHERE pos <= {{max_reported_per_pegout}} AND confidence >= {{min_reported}} AND pegout_height >= {{relink_from}}
ORDER BY confidence DESC, block_gap, pegout_txid, pegout_vout;
