-- The block hash aliases of the ranges to build, in file order.
SELECT prefix, alias, q FROM x_range_aliases SEMI JOIN x_range_todo USING (prefix) ORDER BY prefix, alias
