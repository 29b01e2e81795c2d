-- x_range_aliases += the block hashes the documents index holds (x_prev_docs,
-- pseudo-kind $2) in the touched ranges (x_range_touched) of $1 hex digits,
-- but the dirty blocks' (range-aliases-dirty.sql): the block ranges built or
-- digested map every hash of theirs, and no other range is read.
INSERT INTO x_range_aliases
SELECT left(p.prefix, $1), p.q, p.h::VARCHAR FROM x_prev_docs p
WHERE p.kind = $2 AND left(p.prefix, $1) IN (SELECT prefix FROM x_range_touched)
  AND p.q NOT IN (SELECT q FROM x_alias_docs);
