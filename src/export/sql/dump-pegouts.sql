-- dumps/pegouts.*: every analysed peg-out, amounts in litoshi.
SELECT txid, vout, height, block_time, amount AS amount_litoshi, address, script_hex
FROM analysed_pegouts
ORDER BY height, txid, vout
