-- x_carry: the previous release's files of one kind's ($1) unchanged documents
-- (x_unchanged); `kept` when the recycled release the new one is written into
-- already has the same bytes at that path.
CREATE OR REPLACE TEMP TABLE x_carry AS
SELECT f.*, r.path IS NOT NULL AS kept
FROM x_prev_files f
SEMI JOIN x_unchanged u ON u.q = f.q
LEFT JOIN x_recycled_files r ON r.path = f.path AND r.sha256 = f.sha256
WHERE f.kind = $1;
