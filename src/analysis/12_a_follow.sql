-- a_follow: multi-hop follow chains for every funding address. One step:
-- address → the peg-in it funded whose best link is most confident → that
-- peg-out → its address. Up to {{follow_max_hops}} hops, no address visited twice;
-- cumulative_confidence is the product of the per-hop confidences.
-- A full run computes every address's step and follows every chain; a
-- continuing one computes the steps of w_follow_restep, keeps the published
-- ones of the others (w_follow_kept) and follows the chains from
-- w_follow_restarted (10_w_rescored_continue.sql). A new peg-in's links are
-- all new, so its addresses are in w_follow_restep whenever it has one.
CREATE OR REPLACE TEMP TABLE w_follow_step AS
WITH best AS (
  SELECT i.address AS from_address, l.pegin_txid, l.pegin_vout, l.pegout_txid, l.pegout_vout,
         l.pegout_address AS to_address, l.confidence
  FROM pegin_inputs i JOIN a_links l ON l.pegin_txid = i.pegin_txid
  WHERE i.address IS NOT NULL AND l.pegout_address IS NOT NULL
    AND (i.height >= {{new_from}} OR i.address IN (SELECT address FROM w_follow_restep))
  QUALIFY row_number() OVER (PARTITION BY i.address
    ORDER BY l.confidence DESC, l.block_gap, l.pegout_txid, l.pegout_vout, l.pegin_txid, l.pegin_vout) = 1
)
SELECT true AS computed, * FROM best
UNION ALL
SELECT false, * FROM w_follow_kept;

CREATE OR REPLACE TEMP TABLE a_follow AS
WITH RECURSIVE chain AS (
  SELECT from_address AS start_address, 1 AS hop, from_address, pegin_txid, pegin_vout, pegout_txid, pegout_vout,
         to_address, confidence, confidence AS cumulative_confidence, [from_address, to_address] AS visited
  FROM w_follow_step
  WHERE to_address <> from_address AND (computed OR from_address IN (SELECT address FROM w_follow_restarted))
  UNION ALL
  SELECT c.start_address, c.hop + 1, s.from_address, s.pegin_txid, s.pegin_vout, s.pegout_txid, s.pegout_vout,
         s.to_address, s.confidence, c.cumulative_confidence * s.confidence, list_append(c.visited, s.to_address)
  FROM chain c JOIN w_follow_step s ON s.from_address = c.to_address
  WHERE c.hop < {{follow_max_hops}} AND NOT list_contains(c.visited, s.to_address)
)
SELECT start_address, hop, from_address, pegin_txid, pegin_vout, pegout_txid, pegout_vout, to_address,
       confidence, round(cumulative_confidence, 6) AS cumulative_confidence
FROM chain;
