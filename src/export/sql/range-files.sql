-- Range files (SPEC §4, src/client/range.ts) of one kind as the documents
-- of the pseudo-kind `range:<kind>` (x_doc: q = prefix, has_file, body =
-- the whole file, h = its md5): every document of x_range_docs goes to the
-- range named by the first $1 hex digits of sha256(key), and every prefix of
-- that length has a file, empty or not. Line 1 is the header (envelope with
-- the newest stamp among the range's documents, or the release's ($3, $4)
-- for an empty range; the keys in order; follow's chains; block's hash
-- aliases), then one document per line. $2 = the header up to the
-- as_of_height value ('{"version":…,"unit":…,"as_of_height":'), $5 = kind.
CREATE OR REPLACE TEMP TABLE x_doc AS
WITH docs AS (
  SELECT left(sha256(q), $1) AS prefix, * FROM x_range_docs
), aliases AS (
  SELECT left(sha256(alias), $1) AS prefix,
    '{' || string_agg(to_json(alias) || ':' || q, ',' ORDER BY alias) || '}' AS aliases
  FROM x_range_aliases GROUP BY ALL
), grouped AS (
  SELECT prefix,
    to_json(list(q ORDER BY q) FILTER (WHERE part = 0))::VARCHAR AS keys,
    to_json(list(q ORDER BY q) FILTER (WHERE part = 1))::VARCHAR AS chains,
    string_agg(text, ',' || chr(10) ORDER BY part, q) AS lines,
    max(stamp_time) AS stamp_time, arg_max(stamp_height, stamp_time) AS stamp_height
  FROM docs GROUP BY ALL
), prefixes AS (
  SELECT lpad(lower(hex(i)), $1, '0') AS prefix FROM range(CAST(16 ** $1 AS BIGINT)) t(i)
)
SELECT *, md5(body) AS h FROM (
SELECT p.prefix AS q, true AS has_file,
  $2 || coalesce(g.stamp_height, $3) || ',"updated_at":' || coalesce(g.stamp_time, $4)
    || ',"range":{"kind":' || to_json($5) || ',"prefix":"' || p.prefix || '","hash":"sha256","keys":' || coalesce(g.keys, '[]')
    || CASE WHEN g.chains IS NOT NULL THEN ',"chains":' || g.chains ELSE '' END
    || CASE WHEN a.aliases IS NOT NULL THEN ',"aliases":' || a.aliases ELSE '' END
    || '},"documents":[' || chr(10) || coalesce(g.lines || chr(10), '') || ']}' || chr(10) AS body
FROM prefixes p
LEFT JOIN grouped g USING (prefix)
LEFT JOIN aliases a USING (prefix));
