-- x_range_todo: the ranges of the batch to build, every one whose digest
-- (x_range_digests) is not the previous release's (x_unchanged, docs-unchanged.sql).
CREATE OR REPLACE TEMP TABLE x_range_todo AS SELECT q AS prefix FROM x_range_digests ANTI JOIN x_unchanged USING (q);
