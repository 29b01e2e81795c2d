-- x_range_batch: the touched ranges (x_range_touched) of one batch ($1 hex digits, numbers $2 to $3 − 1).
CREATE OR REPLACE TEMP TABLE x_range_batch AS
SELECT prefix FROM (SELECT lpad(lower(hex(i)), $1, '0') AS prefix FROM range($2, $3) t(i)) SEMI JOIN x_range_touched USING (prefix);
