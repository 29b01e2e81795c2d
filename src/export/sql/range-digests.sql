-- The range files of one kind as documents of the pseudo-kind
-- `range:<kind>` (x_range_digests: q = the prefix, has_file, h, and prefix
-- '' when the range is empty, which the documents index keeps so the next
-- export knows it without reading every document), one for every prefix
-- in this batch (x_range_batch), empty or not. h is a digest of everything a range file's
-- bytes are made of: each document's key, part, body md5 and stamp, the
-- block hashes it maps, and for an empty range the release's stamp ($2, $3),
-- which its header carries ($1, $2). So an unchanged h means unchanged bytes, and the
-- file can be carried over without being built. Each member is hashed twice
-- (two 64-bit hashes, 128 bits in all) and the hashes are combined by xor,
-- which needs no sort: a range's members are unique, so none cancel out.
CREATE OR REPLACE TEMP TABLE x_range_digests AS
WITH docs AS (
  SELECT prefix, bit_xor(hash(part, q, h, stamp_height, stamp_time)) AS d1, bit_xor(hash(q, 'doc', h, stamp_time, part, stamp_height)) AS d2
  FROM x_range_docs SEMI JOIN x_range_batch USING (prefix) GROUP BY prefix
), aliases AS (
  SELECT prefix, bit_xor(hash(alias, q)) AS a1, bit_xor(hash(q, 'alias', alias)) AS a2 FROM x_range_aliases SEMI JOIN x_range_batch USING (prefix) GROUP BY prefix
)
SELECT p.prefix AS q, true AS has_file, CASE WHEN d.prefix IS NULL THEN '' END AS prefix,
  CASE WHEN d.prefix IS NULL THEN md5_number(concat_ws(':', 'empty', $1, $2, a.a1, a.a2))
    ELSE (xor(d.d1, coalesce(a.a1, 0))::UHUGEINT << 64) | xor(d.d2, coalesce(a.a2, 0))::UHUGEINT END AS h
FROM x_range_batch p LEFT JOIN docs d USING (prefix) LEFT JOIN aliases a USING (prefix);
