-- The key-value metadata of every dump's Parquet file (docs/dumps.md), as
-- variables dumps.ts names in COPY … KV_METADATA: the network, the heights
-- the analysis covered and the analysis (as_of_height, updated_at). Needs analysed.sql.
SET VARIABLE dump_network = (SELECT value FROM a_meta WHERE key = 'network');
SET VARIABLE dump_from_height = (SELECT coalesce(min(height), analysed_height())::VARCHAR FROM analysed_blocks);
SET VARIABLE dump_to_height = analysed_height()::VARCHAR;
SET VARIABLE dump_updated_at = (SELECT value FROM a_meta WHERE key = 'updated_at');
