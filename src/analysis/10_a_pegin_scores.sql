-- a_pegin_scores: privacy score 0..100 per peg-in (higher is better).
-- base = score of the anonymity set (peg-ins within ±tolerance in the
-- {{horizon_blocks}} blocks up to and including its own, itself included:
-- w_pegin_sets; privacyOf's window_set from the amount table of its height),
-- the same curve as privacyOf in packages/client/src/privacy.ts; then × (1 − best link
-- confidence), − {{reuse_penalty}} when a funding address also received a peg-out,
-- − {{entity_penalty}} when a funding address is attributed to a known entity.
-- Scored: the peg-ins counted this run (w_pegin_sets: every one in a full run,
-- the new ones when continuing) and the older ones whose score can change
-- (w_pegin_rescored, 10_w_rescored_continue.sql).
CREATE OR REPLACE TEMP TABLE w_pegin_scored AS
SELECT p.txid, p.vout, p.height, s.anonymity_set::BIGINT AS anonymity_set
FROM w_pegin_ids p JOIN w_pegin_sets s USING (id)
UNION ALL
SELECT txid, vout, height, anonymity_set FROM w_pegin_rescored;

CREATE OR REPLACE TEMP TABLE a_pegin_scores AS
WITH linked AS (
  SELECT pegin_txid AS txid, pegin_vout AS vout, max(confidence) AS max_link_confidence
  FROM a_links GROUP BY ALL
), reused AS (  -- a funding address received a peg-out after this peg-in
  SELECT DISTINCT s.txid, s.vout
  FROM w_pegin_scored s
  JOIN pegin_inputs i ON i.pegin_txid = s.txid
  JOIN (SELECT address, max(height) AS last_pegout FROM w_pegouts GROUP BY address) o ON o.address = i.address
  WHERE o.last_pegout > s.height
), attributed AS (
  SELECT i.pegin_txid AS txid, arg_max(a.entity, a.confidence) AS entity
  FROM pegin_inputs i JOIN a_attribution a ON a.address = i.address
  GROUP BY ALL
), parts AS (
  SELECT s.txid, s.vout, s.anonymity_set,
    CASE WHEN s.anonymity_set <= 1 THEN 0
         ELSE round(100 * least(1, ln(s.anonymity_set) / ln({{full_score_set}}))) END AS base,
    coalesce(l.max_link_confidence, 0) AS max_link_confidence,
    r.txid IS NOT NULL AS reused,
    a.entity AS funding_entity
  FROM w_pegin_scored s
  LEFT JOIN linked l USING (txid, vout)
  LEFT JOIN reused r USING (txid, vout)
  LEFT JOIN attributed a ON a.txid = s.txid
)
SELECT txid, vout,
  greatest(0, round(base * (1 - max_link_confidence)
    - CASE WHEN reused THEN {{reuse_penalty}} ELSE 0 END
    - CASE WHEN funding_entity IS NOT NULL THEN {{entity_penalty}} ELSE 0 END))::INTEGER AS privacy_score,
  anonymity_set, max_link_confidence,
  list_filter([
    printf('%d peg-in(s) within ±%s of this amount: base score %d', anonymity_set, ({{tol}} / {{litoshi_per_coin}})::DECIMAL(18, 8)::VARCHAR, base::INTEGER),
    CASE WHEN max_link_confidence > 0 THEN printf('linked to a peg-out with confidence %.2f: score × %.2f', max_link_confidence, 1 - max_link_confidence) END,
    CASE WHEN reused THEN printf('a funding address also received a peg-out (address reuse): −%d', {{reuse_penalty}}) END,
    CASE WHEN funding_entity IS NOT NULL THEN printf('funded from an address attributed to %s: −%d', funding_entity, {{entity_penalty}}) END
  ], r -> r IS NOT NULL) AS reasons
FROM parts;
