-- dumps/pegout_scores.*: the AML risk score of every analysed peg-out (a_pegout_scores), with its block.
SELECT s.txid, s.vout, o.height, b.hash AS block_hash, o.block_time, s.risk_score, s.dest_category, s.traceability, s.reasons
FROM a_pegout_scores s
JOIN analysed_pegouts o USING (txid, vout)
JOIN analysed_blocks b ON b.height = o.height
ORDER BY o.height, s.txid, s.vout
