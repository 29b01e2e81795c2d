-- dumps/pegouts.*: every analysed peg-out with its block, amounts in litoshi.
SELECT o.txid, o.vout, o.height, b.hash AS block_hash, o.block_time, o.amount AS amount_litoshi, o.address, o.script_hex
FROM analysed_pegouts o
JOIN analysed_blocks b USING (height)
ORDER BY o.height, o.txid, o.vout
