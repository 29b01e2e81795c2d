-- x_carry: the previous release's files of one kind's ($1) unchanged documents
-- (x_unchanged); `kept` when the recycled release the new one is written into
-- already has the same bytes at that path, with what the recycled release's
-- files index recorded of that file (kept_ino, kept_mtime_ns: checked before
-- it stays).
CREATE OR REPLACE TEMP TABLE x_carry AS
SELECT f.*, r.path IS NOT NULL AS kept, r.ino AS kept_ino, r.mtime_ns AS kept_mtime_ns
FROM x_prev_files f
SEMI JOIN x_unchanged u ON u.q = f.q
LEFT JOIN x_recycled_files r ON r.path = f.path AND r.sha256 = f.sha256
WHERE f.kind = $1;
