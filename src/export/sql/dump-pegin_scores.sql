-- dumps/pegin_scores.*: the privacy score of every analysed peg-in (a_pegin_scores).
SELECT s.txid, s.vout, p.height, s.privacy_score, s.anonymity_set, s.max_link_confidence, s.reasons
FROM a_pegin_scores s
JOIN analysed_pegins p USING (txid, vout)
ORDER BY p.height, s.txid, s.vout
