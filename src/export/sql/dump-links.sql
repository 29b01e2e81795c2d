-- dumps/links.*: every reported link in API order, amounts in litoshi, with
-- both ends' blocks and the peg-out's attribution and risk score as
-- /api/links gives them.
SELECT l.pegout_txid, l.pegout_vout, l.pegout_height, ob.hash AS pegout_block_hash, ob.time AS pegout_block_time,
  l.pegout_amount AS pegout_amount_litoshi, l.pegout_address,
  a.entity AS pegout_entity, a.category AS pegout_category,
  l.pegin_txid, l.pegin_vout, l.pegin_height, pb.hash AS pegin_block_hash, pb.time AS pegin_block_time,
  l.pegin_amount AS pegin_amount_litoshi, l.amount_diff AS amount_diff_litoshi,
  l.block_gap, l.candidate_count, l.competitor_count, l.confidence, s.risk_score, l.reasons
FROM a_links l
JOIN analysed_blocks ob ON ob.height = l.pegout_height
JOIN analysed_blocks pb ON pb.height = l.pegin_height
LEFT JOIN a_attribution a ON a.address = l.pegout_address
LEFT JOIN a_pegout_scores s ON s.txid = l.pegout_txid AND s.vout = l.pegout_vout
ORDER BY l.confidence DESC, l.block_gap, l.pegout_txid, l.pegout_vout, l.pegin_txid, l.pegin_vout
