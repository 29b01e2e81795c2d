-- x_range_keys: the dirty keys of the kinds ($1, a JSON list) in one kind's
-- range files, with their prefix ($2 hex digits of the sha256 of the key).
CREATE OR REPLACE TEMP TABLE x_range_keys AS SELECT kind, q, left(sha256(q), $2) AS prefix FROM x_dirty_keys
WHERE list_contains(from_json($1, '["VARCHAR"]'), kind);
