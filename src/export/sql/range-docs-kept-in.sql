-- x_range_kept += as range-docs-kept.sql, the documents of one kind ($1,
-- part $2) in one touched range ($3): those whose key prefix starts with it,
-- from $3 on and below $3 || 'g' (hex digits sort below 'g'). A range of the
-- documents index's prefixes is a scan its zone maps mostly skip; a semi
-- join reads every document of the kind (3 ms instead of 90 at x10).
INSERT INTO x_range_kept
SELECT $3, p.q, $2, p.h, NULL, p.stamp_height, p.stamp_time
FROM x_prev_docs p
ANTI JOIN x_dirty_keys d ON d.kind = $1 AND d.q = p.q
ANTI JOIN x_gone_docs g ON g.kind = $1 AND g.q = p.q
WHERE p.kind = $1 AND p.prefix >= $3 AND p.prefix < $3 || 'g';
