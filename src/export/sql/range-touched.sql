-- x_range_touched: the ranges of one kind whose file this export builds (or
-- finds unchanged by its digest); every other range file is carried over
-- as it is. A range is touched when it holds a dirty key (x_range_keys) or
-- a gone one (x_gone_docs), when a block hash it maps belongs to a dirty
-- block (block ranges), or when it was empty (its index row's prefix is '',
-- or '?' when unknown): an empty range's header carries the release's
-- stamp. Every range is touched when $3 is true (a new prefix length, or a
-- chain that did not only grow, which may take hash aliases away). $1 = the
-- kinds in the range files (a JSON list), $2 = the prefix length, $4 = the
-- range files' pseudo-kind (range:<kind>).
CREATE OR REPLACE TEMP TABLE x_range_touched AS
WITH kinds AS (
  SELECT unnest(from_json($1, '["VARCHAR"]')) AS kind
)
SELECT prefix FROM x_range_keys
UNION SELECT left(g.prefix, $2) FROM x_gone_docs g SEMI JOIN kinds USING (kind)
UNION SELECT a.prefix FROM x_range_aliases a SEMI JOIN x_range_keys k ON k.kind = 'block' AND k.q = a.q
UNION SELECT q FROM x_prev_docs WHERE kind = $4 AND prefix IN ('', '?')
UNION SELECT lpad(lower(hex(i)), $2, '0') FROM range(0, (16 ** $2)::BIGINT) t(i) WHERE $3;
