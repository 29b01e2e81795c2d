-- dumps/reuse.*: address reuse (a_reuse): a peg-out paying an address that
-- funded an earlier peg-in, with the latest such peg-in, one row per
-- peg-out, both ends with their blocks.
SELECT r.address, r.pegout_txid, r.pegout_vout, o.height AS pegout_height, ob.hash AS pegout_block_hash, o.block_time AS pegout_block_time,
  r.pegin_txid, r.pegin_vout, p.height AS pegin_height, pb.hash AS pegin_block_hash, p.block_time AS pegin_block_time
FROM a_reuse r
JOIN analysed_pegouts o ON o.txid = r.pegout_txid AND o.vout = r.pegout_vout
JOIN analysed_pegins p ON p.txid = r.pegin_txid AND p.vout = r.pegin_vout
JOIN analysed_blocks ob ON ob.height = o.height
JOIN analysed_blocks pb ON pb.height = p.height
ORDER BY o.height, r.pegout_txid, r.pegout_vout
