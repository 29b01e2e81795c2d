-- The base tables as far as the analysis covered them: rows up to a_meta's
-- as_of_height. A scan without a new analysis may have stored blocks above
-- it; the export reads base rows only through these views, so it never
-- publishes a peg the analysis has not seen under the analysis's stamp.
-- The height is read once, when the views are defined (each export, on each
-- connection it uses), into a variable: a constant the scans filter on and
-- prune by, where a subquery in every view made each scan a nested loop join
-- (scans of peg-ins and inputs took twice as long at x10).
SET VARIABLE analysed_height = (SELECT CAST(value AS INTEGER) FROM a_meta WHERE key = 'as_of_height');
CREATE OR REPLACE TEMP MACRO analysed_height() AS getvariable('analysed_height');
CREATE OR REPLACE TEMP VIEW analysed_blocks AS SELECT * FROM blocks WHERE height <= analysed_height();
CREATE OR REPLACE TEMP VIEW analysed_pegins AS SELECT * FROM pegins WHERE height <= analysed_height();
CREATE OR REPLACE TEMP VIEW analysed_pegin_inputs AS SELECT * FROM pegin_inputs WHERE height <= analysed_height();
CREATE OR REPLACE TEMP VIEW analysed_pegouts AS SELECT * FROM pegouts WHERE height <= analysed_height();
