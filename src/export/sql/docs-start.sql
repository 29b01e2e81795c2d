-- x_docs: the per-query documents of this export (kind, key, body md5, stamp),
-- filled kind by kind (docs-record.sql, docs-clean.sql) and written to the
-- state's docs index for the next export.
CREATE OR REPLACE TEMP TABLE x_docs (kind VARCHAR, q VARCHAR, h UHUGEINT, stamp_height INTEGER, stamp_time BIGINT);
