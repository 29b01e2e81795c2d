-- One kind's documents on their way into range files (after
-- range-batch-start.sql): x_range_kept (not rendered, range-docs-kept.sql),
-- the view x_range_docs of it and x_range_rendered, and x_range_aliases
-- (block hashes by range).
CREATE OR REPLACE TEMP TABLE x_range_kept AS FROM x_range_rendered;
CREATE OR REPLACE TEMP VIEW x_range_docs AS FROM x_range_kept UNION ALL FROM x_range_rendered;
CREATE OR REPLACE TEMP TABLE x_range_aliases (prefix VARCHAR, alias VARCHAR, q VARCHAR);
