-- x_docs: the per-query documents this export recorded (kind, key, the first
-- hex digits of the key's sha256, body md5, stamp, and whether the previous
-- release had it, which doc-counts.sql counts): those it rendered, and
-- the range files it digested (docs-record.sql). Every other document of the
-- previous release (x_prev_docs) stays as it was unless it is gone
-- (x_gone_docs); docs-index-stage.sql and docs-index-apply.sql merge both into the site's index.
CREATE OR REPLACE TEMP TABLE x_docs (kind VARCHAR, q VARCHAR, prefix VARCHAR, h UHUGEINT, stamp_height INTEGER, stamp_time BIGINT, previous BOOLEAN);
