-- The range files of one kind as documents of the pseudo-kind
-- `range:<kind>` (x_doc: q = the prefix, has_file, h), one for every prefix
-- of $1 hex digits, empty or not. h is an md5 of everything a range file's
-- bytes are made of: each document's key, part, body md5 and stamp, the
-- block hashes it maps, and for an empty range the release's stamp ($2, $3),
-- which its header carries. So an unchanged h means unchanged bytes, and the
-- file can be carried over without being built.
CREATE OR REPLACE TEMP TABLE x_doc AS
WITH docs AS (
  SELECT prefix, string_agg(concat_ws(':', part, q, h, stamp_height, stamp_time), ',' ORDER BY part, q) AS docs
  FROM x_range_docs GROUP BY prefix
), aliases AS (
  SELECT prefix, string_agg(alias || ':' || q, ',' ORDER BY alias) AS aliases FROM x_range_aliases GROUP BY prefix
), prefixes AS (
  SELECT lpad(lower(hex(i)), $1, '0') AS prefix FROM range(CAST(16 ** $1 AS BIGINT)) t(i)
)
SELECT p.prefix AS q, true AS has_file, md5(coalesce(d.docs, concat_ws(':', 'empty', $2, $3)) || '|' || coalesce(a.aliases, '')) AS h
FROM prefixes p LEFT JOIN docs d USING (prefix) LEFT JOIN aliases a USING (prefix);
