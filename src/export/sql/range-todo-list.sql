-- The ranges to build (x_range_todo), in order.
SELECT prefix FROM x_range_todo ORDER BY prefix
