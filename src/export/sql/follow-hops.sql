-- x_follow_hops: the hops of every multi-hop follow chain (a_follow, which
-- stops at follow_max_hops), one row per start address with its hops in
-- order as structs, ready for the follow documents and the longer chains.
-- Needs nodes.sql (x_attribution).
CREATE OR REPLACE TEMP TABLE x_follow_hops AS
SELECT f.start_address,
  list({'from': f.from_address, 'pegin': {'txid': f.pegin_txid, 'vout': f.pegin_vout},
        'pegout': {'txid': f.pegout_txid, 'vout': f.pegout_vout}, 'to': f.to_address,
        'to_attribution': attr.attribution, 'confidence': f.confidence,
        'cumulative_confidence': f.cumulative_confidence} ORDER BY f.hop) AS hops
FROM a_follow f LEFT JOIN x_attribution attr ON attr.address = f.to_address
GROUP BY f.start_address;
