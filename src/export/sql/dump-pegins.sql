-- dumps/pegins.*: every peg-in, amounts in litoshi.
SELECT txid, vout, height, block_time, amount AS amount_litoshi, kernel_id, input_count, source_address
FROM pegins
ORDER BY height, txid, vout
