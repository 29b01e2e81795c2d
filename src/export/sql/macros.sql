-- Macros of the export's JSON rendering, for every document query.

-- Litoshi → JSON coin number, made from the exact decimal text (never a
-- float division), with at most 8 decimals. to_json reads a JSON value back
-- as a double and prints one below 1e-6 in exponent form (1 litoshi as
-- 1e-8), but keeps a number too large for a double as written. So an amount
-- below 100 litoshi (below 1e-6 coin) gets the exponent e999 here, which
-- keeps its decimal text intact through to_json, and json_plain removes the
-- mark from the finished document. Every other amount prints as its decimal
-- text, exactly as the JavaScript serializer (src/api/json.ts) prints it.
CREATE OR REPLACE TEMP MACRO coin_json(x) AS CAST(CASE WHEN x IS NULL THEN 'null'
  ELSE rtrim(rtrim(printf('%d.%08d', x // 100000000, x % 100000000), '0'), '.')
    || CASE WHEN x BETWEEN 1 AND 99 THEN 'e999' ELSE '' END END AS JSON);

-- A finished JSON text without coin_json's e999 marks. Each string is matched
-- whole and put back as it was, so a mark is removed only outside strings;
-- texts without the mark (nearly all) skip the regular expression.
CREATE OR REPLACE TEMP MACRO json_plain(text) AS CASE WHEN contains(text, 'e999')
  THEN regexp_replace(text, '("(?:[^"\\]|\\.)*")|e999', '\1', 'g') ELSE text END;

-- Documents are assembled from node JSON text: to_json of a list of nested
-- structs costs far more than serialising each node once and joining the
-- text (a peg-in node appears in its tx, address and block documents).
-- json_extend appends members (text starting with ',') to a JSON object.
CREATE OR REPLACE TEMP MACRO json_extend(obj, members) AS left(obj, -1) || members || '}';
CREATE OR REPLACE TEMP MACRO json_array(elements) AS '[' || coalesce(elements, '') || ']';

-- list(v ORDER BY k) for a key k unique within each group, given
-- list({'k': k, 'v': v}): list_sort compares k first and never reaches v.
-- DuckDB's ordered aggregate sorts every group apart: the peg-in inputs of
-- a full x10 export took 10.9 s that way, 1.8 s this way.
CREATE OR REPLACE TEMP MACRO sorted_values(pairs) AS list_transform(list_sort(pairs), x -> x.v);
-- string_agg(v, ',' ORDER BY k) the same way: JSON texts, joined as json_array's elements.
CREATE OR REPLACE TEMP MACRO sorted_joined(pairs) AS array_to_string(sorted_values(pairs), ',');

-- The first 8 hex digits of a key's sha256, recorded with each document in
-- the documents index: every range prefix is cut from it (left(…, length)),
-- so carrying a document over never hashes its key again.
CREATE OR REPLACE TEMP MACRO key_prefix(q) AS left(sha256(q), 8);

-- A 128-bit digest of a value (a row): two 64-bit hashes, one of them
-- salted with a tag. The documents index keeps such digests for the next
-- export to compare with: of what documents show of an address (its
-- attribution and cluster, attribution_now() in attribution-now.sql), and of a peg
-- (peg-digests.sql). hash() may differ in another DuckDB version: every
-- address and peg then counts as changed once, which renders more, never less.
CREATE OR REPLACE TEMP MACRO digest128(tag, value) AS (hash(value)::UHUGEINT << 64) | hash(tag, value)::UHUGEINT;
CREATE OR REPLACE TEMP MACRO attribution_digest(attribution, cluster_id, cluster_size) AS
  digest128('attribution', row(attribution, cluster_id, cluster_size));
