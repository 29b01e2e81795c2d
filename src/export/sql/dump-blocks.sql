-- dumps/blocks.*: every analysed MWEB block (one with a HogEx), with or
-- without pegs: its hash and time, the MWEB supply after it, its MWEB size
-- and peg totals, in litoshi. The HogEx txid is left out: it is
-- `pegouts.txid` of a block with peg-outs, and a node gives it.
SELECT height, hash AS block_hash, time AS block_time, supply AS supply_litoshi,
  pegin_count, pegin_total AS pegin_total_litoshi, pegout_count, pegout_total AS pegout_total_litoshi,
  mweb_num_txos, mweb_num_kernels, tx_count
FROM analysed_blocks
WHERE supply IS NOT NULL
ORDER BY height
