-- dumps/pegins.*: every analysed peg-in, amounts in litoshi.
SELECT txid, vout, height, block_time, amount AS amount_litoshi, kernel_id, input_count, source_address
FROM analysed_pegins
ORDER BY height, txid, vout
