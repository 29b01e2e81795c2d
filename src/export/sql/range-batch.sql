-- x_range_batch: the prefixes of one batch of ranges ($1 hex digits, numbers $2 to $3 − 1).
CREATE OR REPLACE TEMP TABLE x_range_batch AS SELECT lpad(lower(hex(i)), $1, '0') AS prefix FROM range($2, $3) t(i);
