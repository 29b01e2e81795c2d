-- As range-aliases.sql, but only the hashes of the dirty blocks
-- (x_range_keys), the new ones among them, when the documents index holds
-- every other: hashing every block hash again took 0.3 s of an export after
-- one block at x10. range-aliases-indexed.sql adds the index's hashes of
-- the touched ranges once they are known (the dirty ones are what touches them).
CREATE OR REPLACE TEMP TABLE x_alias_docs AS
SELECT b.hash AS q, key_prefix(b.hash) AS prefix, b.q::UHUGEINT AS h
FROM x_block_keys b SEMI JOIN x_range_keys k ON k.kind = 'block' AND k.q = b.q;
