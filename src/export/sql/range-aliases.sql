-- x_alias_docs: every block hash with a peg (x_block_keys, keys.sql) as a
-- row of the documents index (q = the hash, prefix = the first hex digits of
-- its sha256, h = the height), under the pseudo-kind alias:block, on their
-- way into x_range_aliases (workspace.ts). When the chain did not only grow,
-- or the index lacks the hashes (range-aliases-dirty.sql otherwise).
CREATE OR REPLACE TEMP TABLE x_alias_docs AS SELECT hash AS q, key_prefix(hash) AS prefix, q::UHUGEINT AS h FROM x_block_keys;
