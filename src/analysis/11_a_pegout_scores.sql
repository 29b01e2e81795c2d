-- a_pegout_scores: AML risk 0..100 per peg-out (higher is more concerning).
-- risk = max(destination category risk × attribution confidence,
--            max over links of link confidence × funding category risk × its confidence)
--        + {{traceability_weight}} × traceability (best link confidence)
--        + {{reuse_risk}} when the destination address also funded a peg-in; capped at 100.
-- Category risks come from w_label_categories (the model registry); an
-- address without attribution has risk 0.
CREATE OR REPLACE TEMP TABLE w_attribution_risk AS
SELECT a.address, a.entity, a.category, a.confidence, coalesce(k.risk, 0) AS category_risk
FROM a_attribution a LEFT JOIN w_label_categories k USING (category);

CREATE OR REPLACE TEMP TABLE a_pegout_scores AS
WITH funding_risk AS (
  SELECT l.pegout_txid AS txid, l.pegout_vout AS vout,
         max(l.confidence * a.category_risk * a.confidence) AS risk,
         arg_max(a.category, l.confidence * a.category_risk * a.confidence) AS category
  FROM a_links l
  JOIN pegin_inputs i ON i.pegin_txid = l.pegin_txid
  JOIN w_attribution_risk a ON a.address = i.address
  GROUP BY ALL
), traced AS (
  SELECT pegout_txid AS txid, pegout_vout AS vout, max(confidence) AS traceability FROM a_links GROUP BY ALL
), reused AS (
  SELECT DISTINCT pegout_txid AS txid, pegout_vout AS vout FROM a_reuse
), parts AS (
  SELECT o.txid, o.vout, a.category AS dest_category, a.entity AS dest_entity,
    coalesce(a.category_risk * a.confidence, 0) AS dest_risk,
    coalesce(f.risk, 0) AS funding_risk, f.category AS funding_category,
    coalesce(t.traceability, 0) AS traceability,
    r.txid IS NOT NULL AS reused
  FROM w_pegouts o
  LEFT JOIN w_attribution_risk a ON a.address = o.address
  LEFT JOIN funding_risk f ON f.txid = o.txid AND f.vout = o.vout
  LEFT JOIN traced t ON t.txid = o.txid AND t.vout = o.vout
  LEFT JOIN reused r ON r.txid = o.txid AND r.vout = o.vout
  -- Scored: the new peg-outs (every one in a full run) and the older ones whose
  -- risk can change (w_pegout_rescored, 10_w_rescored_continue.sql).
  WHERE o.height >= {{new_from}} OR (o.txid, o.vout) IN (SELECT txid, vout FROM w_pegout_rescored)
)
SELECT txid, vout,
  least(100, round(greatest(dest_risk, funding_risk) + {{traceability_weight}} * traceability
    + CASE WHEN reused THEN {{reuse_risk}} ELSE 0 END))::INTEGER AS risk_score,
  dest_category, traceability,
  list_filter([
    CASE WHEN dest_category IS NOT NULL THEN printf('destination attributed to %s (%s): risk %.0f', dest_entity, dest_category, dest_risk) END,
    CASE WHEN funding_risk > 0 THEN printf('linked peg-in funded by a %s address: risk %.0f after link confidence', funding_category, funding_risk) END,
    CASE WHEN traceability > 0 THEN printf('traceable to a peg-in with confidence %.2f: +%.0f', traceability, {{traceability_weight}} * traceability) END,
    CASE WHEN reused THEN printf('destination address also funded a peg-in (reuse): +%d', {{reuse_risk}}) END
  ], r -> r IS NOT NULL) AS reasons
FROM parts;
