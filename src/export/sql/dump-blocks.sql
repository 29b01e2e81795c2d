-- dumps/blocks.*: every analysed MWEB block (one with a HogEx), with or
-- without pegs: the MWEB supply after it, its MWEB size and peg totals, in
-- litoshi. Keyed by height, without the block hash and HogEx txid: two
-- 64-hex columns would take ~85 instead of ~9 bytes a block (~51 MB at the
-- mainnet preset, over the host budget's 25 MiB a file).
SELECT height, time, supply AS supply_litoshi,
  pegin_count, pegin_total AS pegin_total_litoshi, pegout_count, pegout_total AS pegout_total_litoshi,
  mweb_num_txos, mweb_num_kernels, tx_count
FROM analysed_blocks
WHERE supply IS NOT NULL
ORDER BY height
