-- dumps/pegout_scores.*: the AML risk score of every analysed peg-out (a_pegout_scores).
SELECT s.txid, s.vout, o.height, s.risk_score, s.dest_category, s.traceability, s.reasons
FROM a_pegout_scores s
JOIN analysed_pegouts o USING (txid, vout)
ORDER BY o.height, s.txid, s.vout
