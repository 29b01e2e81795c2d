-- x_range_rendered: the documents of one batch of ranges rendered, with their
-- texts (range-docs.sql); emptied before each batch, whose texts are then written.
CREATE OR REPLACE TEMP TABLE x_range_rendered (prefix VARCHAR, q VARCHAR, part INTEGER, h UHUGEINT, text VARCHAR, stamp_height INTEGER, stamp_time BIGINT);
