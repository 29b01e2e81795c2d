-- dumps/pegin_inputs.*: the inputs of every analysed peg-in transaction (its
-- public funding side), once per transaction, values in litoshi.
SELECT pegin_txid, n, height, prev_txid, prev_vout, address, value AS value_litoshi
FROM analysed_pegin_inputs
ORDER BY height, pegin_txid, n
