-- x_render_keys, what the document queries render: every dirty key of one kind ($1).
CREATE OR REPLACE TEMP TABLE x_render_keys AS SELECT kind, q FROM x_dirty_keys WHERE kind = $1;
