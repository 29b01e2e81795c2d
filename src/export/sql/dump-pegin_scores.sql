-- dumps/pegin_scores.*: the privacy score of every analysed peg-in (a_pegin_scores), with its block.
SELECT s.txid, s.vout, p.height, b.hash AS block_hash, p.block_time, s.privacy_score, s.anonymity_set, s.max_link_confidence, s.reasons
FROM a_pegin_scores s
JOIN analysed_pegins p USING (txid, vout)
JOIN analysed_blocks b ON b.height = p.height
ORDER BY p.height, s.txid, s.vout
