-- a_entity_flows: value moving between attributed entities through round-trip
-- links of confidence >= {{linkable_confidence}} (funding entity of the peg-in → entity of the
-- peg-out address; 'unattributed' when unknown). expected_links = sum of confidences.
CREATE OR REPLACE TEMP TABLE a_entity_flows AS
WITH funding AS (
  SELECT p.txid, p.vout, a.entity, a.category
  FROM w_pegins p JOIN a_attribution a ON a.address = p.source_address
)
SELECT coalesce(f.entity, 'unattributed') AS from_entity, f.category AS from_category,
       coalesce(t.entity, 'unattributed') AS to_entity, t.category AS to_category,
       count(*) AS links, round(sum(l.confidence), 4) AS expected_links, sum(l.pegout_amount) AS amount
FROM a_links l
LEFT JOIN funding f ON f.txid = l.pegin_txid AND f.vout = l.pegin_vout
LEFT JOIN a_attribution t ON t.address = l.pegout_address
WHERE l.confidence >= {{linkable_confidence}}
GROUP BY ALL
ORDER BY links DESC, from_entity, to_entity;
