-- x_follow_hops: the hops of the follow chains to render (a_follow, which
-- stops at follow_max_hops; x_dirty_keys), one row per start address with its
-- hops in order as structs, ready for the follow documents and the longer
-- chains. Needs attribution.sql and dirty.sql.
CREATE OR REPLACE TEMP TABLE x_follow_hops AS
SELECT f.start_address,
  list({'from': f.from_address, 'pegin': {'txid': f.pegin_txid, 'vout': f.pegin_vout},
        'pegout': {'txid': f.pegout_txid, 'vout': f.pegout_vout}, 'to': f.to_address,
        'to_attribution': attr.attribution, 'confidence': f.confidence,
        'cumulative_confidence': f.cumulative_confidence} ORDER BY f.hop) AS hops
FROM a_follow f LEFT JOIN x_attribution attr ON attr.address = f.to_address
SEMI JOIN x_dirty_keys k ON k.kind IN ('follow', 'follow_chain') AND k.q = f.start_address
GROUP BY f.start_address;
