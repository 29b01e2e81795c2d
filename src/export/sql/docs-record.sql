-- One kind's documents as x_docs rows (kind, q, prefix, h, stamp, previous), from
-- `documents` (q, prefix, h = the md5 of the body or the range digest), a
-- CTE the caller names: x_rendered_docs (a kind's rendered bodies, with
-- their key prefix), x_range_digests (a batch of range files, '' for an
-- empty one) or x_dump_digests (dump partitions, none). Each is stamped with
-- the analysis that last changed it: one unchanged since the previous release
-- (x_prev_docs) keeps the stamp it had, any other gets this analysis's;
-- previous says whether the previous release had it.
-- $1 = kind, $2 = as_of_height, $3 = updated_at.
SELECT $1, d.q, d.prefix, d.h,
  CASE WHEN p.h = d.h THEN p.stamp_height ELSE $2 END,
  CASE WHEN p.h = d.h THEN p.stamp_time ELSE $3 END,
  p.h IS NOT NULL
FROM documents d
LEFT JOIN x_prev_docs p ON p.kind = $1 AND p.q = d.q
