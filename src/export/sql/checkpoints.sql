-- Block hashes at the checkpoint heights ($1, a JSON list of heights), to
-- recognise this chain in a later export (state.ts checkpointHeights).
SELECT height, hash FROM analysed_blocks WHERE list_contains(from_json($1, '["INTEGER"]'), height) ORDER BY height DESC
