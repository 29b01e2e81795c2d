-- dumps/pegouts.*: every peg-out, amounts in litoshi.
SELECT txid, vout, height, block_time, amount AS amount_litoshi, address, script_hex
FROM pegouts
ORDER BY height, txid, vout
