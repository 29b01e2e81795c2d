-- x_range_kept += the documents of one kind this export did not render (not
-- dirty, not gone) in the ranges it builds (x_range_touched): as
-- range-docs.sql, with no text; the range writer takes it from the previous
-- release's range file. $1 = the kind in x_docs, $2 = part, $3 = the prefix length.
INSERT INTO x_range_kept
SELECT left(p.prefix, $3), p.q, $2, p.h, NULL, p.stamp_height, p.stamp_time
FROM x_prev_docs p
SEMI JOIN x_range_touched t ON t.prefix = left(p.prefix, $3)
ANTI JOIN x_dirty_keys d ON d.kind = $1 AND d.q = p.q
ANTI JOIN x_gone_docs g ON g.kind = $1 AND g.q = p.q
WHERE p.kind = $1;
