-- x_range_kept += the documents of one kind this export did not render (not
-- dirty): as range-docs.sql, with no text; the range writer takes it from the
-- previous release's range file. $1 = the kind in x_docs, $2 = part, $3 = the
-- prefix length.
INSERT INTO x_range_kept
SELECT left(sha256(s.q), $3), s.q, $2, s.h, NULL, s.stamp_height, s.stamp_time
FROM x_docs s ANTI JOIN x_dirty_keys d ON d.kind = $1 AND d.q = s.q
WHERE s.kind = $1;
