-- The documents of the ranges to build, in file order (prefix, part, key);
-- text is null for a document not rendered (taken from the previous range file).
SELECT prefix, q, part, text, stamp_height, stamp_time FROM x_range_docs
SEMI JOIN x_range_todo USING (prefix) ORDER BY prefix, part, q
