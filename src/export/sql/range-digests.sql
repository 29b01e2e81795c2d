-- The range files of one kind as documents of the pseudo-kind
-- `range:<kind>` (x_doc: q = the prefix, has_file, h), one for every prefix
-- of $1 hex digits, empty or not. h is a digest of everything a range file's
-- bytes are made of: each document's key, part, body md5 and stamp, the
-- block hashes it maps, and for an empty range the release's stamp ($2, $3),
-- which its header carries. So an unchanged h means unchanged bytes, and the
-- file can be carried over without being built. Each member is hashed twice
-- (two 64-bit hashes, 128 bits in all) and the hashes are combined by xor,
-- which needs no sort: a range's members are unique, so none cancel out.
CREATE OR REPLACE TEMP TABLE x_doc AS
WITH docs AS (
  SELECT prefix, bit_xor(hash(part, q, h, stamp_height, stamp_time)) AS d1, bit_xor(hash(q, 'doc', h, stamp_time, part, stamp_height)) AS d2
  FROM x_range_docs GROUP BY prefix
), aliases AS (
  SELECT prefix, bit_xor(hash(alias, q)) AS a1, bit_xor(hash(q, 'alias', alias)) AS a2 FROM x_range_aliases GROUP BY prefix
), prefixes AS (
  SELECT lpad(lower(hex(i)), $1, '0') AS prefix FROM range(CAST(16 ** $1 AS BIGINT)) t(i)
)
SELECT p.prefix AS q, true AS has_file,
  CASE WHEN d.prefix IS NULL THEN md5(concat_ws(':', 'empty', $2, $3, a.a1, a.a2)) ELSE printf('%016x%016x', xor(d.d1, coalesce(a.a1, 0)), xor(d.d2, coalesce(a.a2, 0))) END AS h
FROM prefixes p LEFT JOIN docs d USING (prefix) LEFT JOIN aliases a USING (prefix);
