-- The site's documents index (attached as docs_index; state.ts DOCS_DB):
-- every per-query document of one release (docs_index.release) with its key
-- prefix, body md5 and stamp. An export reads it as x_prev_docs, stages what
-- it recorded before publishing (docs_index.pending, a gone document with no
-- md5; docs_index.pending_release) and takes it in once published
-- (docs-index-apply.sql), so a kill at any point leaves an index that
-- describes the current release, or one step of it ahead that the next
-- export applies or discards by the release current names.
CREATE TABLE IF NOT EXISTS docs_index.docs (kind VARCHAR, q VARCHAR, prefix VARCHAR, h UHUGEINT, stamp_height INTEGER, stamp_time BIGINT);
CREATE TABLE IF NOT EXISTS docs_index.release (id VARCHAR);
CREATE TABLE IF NOT EXISTS docs_index.pending (kind VARCHAR, q VARCHAR, prefix VARCHAR, h UHUGEINT, stamp_height INTEGER, stamp_time BIGINT);
CREATE TABLE IF NOT EXISTS docs_index.pending_release (id VARCHAR, replaces BOOLEAN);
