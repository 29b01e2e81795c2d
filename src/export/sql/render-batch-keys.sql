-- x_render_keys, what the document queries render: the dirty keys of one
-- kind ($1) in a batch's prefixes, from $2 on and below $3 (null: no bound; writer.ts KeyScope).
CREATE OR REPLACE TEMP TABLE x_render_keys AS
SELECT kind, q FROM x_range_keys WHERE kind = $1 AND prefix >= $2 AND ($3 IS NULL OR prefix < $3);
