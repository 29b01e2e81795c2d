-- The dump partitions ($1 blocks each) holding a dirty peg of each side
-- (x_dirty_pegins, x_dirty_pegouts: dirty.sql), as `<side>:<start>`.
SELECT 'pegin:' || (height // $1 * $1) AS part FROM analysed_pegins SEMI JOIN x_dirty_pegins USING (txid, vout)
UNION SELECT 'pegout:' || (height // $1 * $1) FROM analysed_pegouts SEMI JOIN x_dirty_pegouts USING (txid, vout)
