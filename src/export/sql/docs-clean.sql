-- x_docs += the documents of one kind ($1) this export does not render: keys
-- of this release that are not dirty (dirty.sql) keep the previous release's
-- body md5 and stamp, and their bytes are taken from its files.
INSERT INTO x_docs
SELECT p.kind, p.q, p.h, p.stamp_height, p.stamp_time FROM x_prev_docs p
SEMI JOIN x_keys k ON k.kind = $1 AND k.q = p.q
ANTI JOIN x_dirty_keys d ON d.kind = $1 AND d.q = p.q
WHERE p.kind = $1;
