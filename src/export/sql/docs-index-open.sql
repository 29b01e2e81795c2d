-- The site's documents index (attached as docs_index; state.ts DOCS_DB):
-- every per-query document of one release (docs_index.release) with its key
-- prefix, body md5 and stamp, and what the next export compares with: the
-- digest of what the release shows of each address (attribution) and of
-- each peg it will ask about (pegs; peg-digests.sql), and of the analysis
-- tables both were computed from (analysis; analysis-digest.sql). An export reads it as
-- x_prev_docs and x_prev_pegs, stages what it recorded before publishing
-- (docs_index.pending*, a gone row with no digest; docs_index.pending_release)
-- and takes it in once published (docs-index-apply.sql), so a kill at any
-- point leaves an index that describes the current release, or one step of
-- it ahead that the next export applies or discards by the release current names.
CREATE TABLE IF NOT EXISTS docs_index.docs (kind VARCHAR, q VARCHAR, prefix VARCHAR, h UHUGEINT, stamp_height INTEGER, stamp_time BIGINT);
CREATE TABLE IF NOT EXISTS docs_index.attribution (address VARCHAR, h UHUGEINT);
CREATE TABLE IF NOT EXISTS docs_index.pegs (side VARCHAR, txid VARCHAR, vout INTEGER, digest UHUGEINT);
CREATE TABLE IF NOT EXISTS docs_index.analysis (digest UHUGEINT);
CREATE TABLE IF NOT EXISTS docs_index.release (id VARCHAR);
CREATE TABLE IF NOT EXISTS docs_index.pending (kind VARCHAR, q VARCHAR, prefix VARCHAR, h UHUGEINT, stamp_height INTEGER, stamp_time BIGINT);
CREATE TABLE IF NOT EXISTS docs_index.pending_attribution (address VARCHAR, h UHUGEINT);
CREATE TABLE IF NOT EXISTS docs_index.pending_pegs (side VARCHAR, txid VARCHAR, vout INTEGER, digest UHUGEINT);
CREATE TABLE IF NOT EXISTS docs_index.pending_analysis (digest UHUGEINT);
CREATE TABLE IF NOT EXISTS docs_index.pending_release (id VARCHAR, replaces BOOLEAN);
