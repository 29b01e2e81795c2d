-- dumps/pegins.*: every analysed peg-in with its block, amounts in litoshi.
SELECT p.txid, p.vout, p.height, b.hash AS block_hash, p.block_time, p.amount AS amount_litoshi, p.kernel_id, p.input_count, p.source_address
FROM analysed_pegins p
JOIN analysed_blocks b USING (height)
ORDER BY p.height, p.txid, p.vout
