-- dumps/links.*: every reported link in API order, amounts in litoshi.
SELECT pegout_txid, pegout_vout, pegout_height, pegout_amount AS pegout_amount_litoshi, pegout_address,
  pegin_txid, pegin_vout, pegin_height, pegin_amount AS pegin_amount_litoshi, amount_diff AS amount_diff_litoshi,
  block_gap, candidate_count, competitor_count, confidence, array_to_string(reasons, '; ') AS reasons
FROM a_links
ORDER BY confidence DESC, block_gap, pegout_txid, pegout_vout, pegin_txid, pegin_vout
