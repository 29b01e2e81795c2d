-- dumps/pegin_inputs.*: the inputs of every analysed peg-in transaction (its
-- public funding side), once per transaction, with its block, values in litoshi.
SELECT i.pegin_txid, i.n, i.height, b.hash AS block_hash, b.time AS block_time, i.prev_txid, i.prev_vout, i.address, i.value AS value_litoshi
FROM analysed_pegin_inputs i
JOIN analysed_blocks b USING (height)
ORDER BY i.height, i.pegin_txid, i.n
