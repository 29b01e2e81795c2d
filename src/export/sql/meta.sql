-- The analysis's facts (a_meta: as_of_height, updated_at, network, horizon_blocks, tolerance) as key and value.
SELECT key, value FROM a_meta
