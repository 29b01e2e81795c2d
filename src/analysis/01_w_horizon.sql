-- Ids for the box counts of the horizon (docs/methodology.md "The horizon";
-- horizon.ts fills the count tables): every peg-in's anonymity set (peg-ins
-- within ±tol in the {{horizon_blocks}} blocks up to and including its own)
-- and every peg-out's window (peg-ins in [A, A + tol] in the {{horizon_blocks}}
-- blocks before it).
-- Any numbering 0..n-1 will do (no sort): an id only ties a peg to its count
-- within this run, and no result depends on its value. Only the pegs the
-- counts reach get one (every peg in a full run): peg-outs whose windows are
-- counted (from {{rewindow_from}} on) and the peg-ins up to H below them.
CREATE OR REPLACE TEMP TABLE w_pegin_ids AS
SELECT row_number() OVER ()::INTEGER - 1 AS id, txid, vout, height, amount FROM w_pegins
WHERE height >= least({{recount_from}}, {{rewindow_from}}) - {{horizon_blocks}};

CREATE OR REPLACE TEMP TABLE w_pegout_ids AS
SELECT row_number() OVER ()::INTEGER - 1 AS orid, txid, vout, address, height, amount FROM w_pegouts
WHERE height >= {{rewindow_from}};

-- Counted here: anonymity sets of peg-ins from {{recount_from}} on (a set never
-- changes after its block) and windows of the peg-outs whose links are computed
-- (04_a_links.sql).
CREATE OR REPLACE TEMP TABLE w_pegin_sets (id INTEGER, anonymity_set INTEGER);
CREATE OR REPLACE TEMP TABLE w_pegout_windows (orid INTEGER, window_count INTEGER);
