-- What a run scores and follows again besides its new pegs: nothing in a full
-- run, where every peg is new. A continuing run fills these tables
-- (10_w_rescored_continue.sql) with the older pegs and addresses whose
-- published scores or follow chains the new blocks can change; the later
-- steps compute those and analyze.ts keeps every other published row.
CREATE OR REPLACE TEMP TABLE w_pegin_rescored (txid VARCHAR, vout INTEGER, height INTEGER, anonymity_set BIGINT);
CREATE OR REPLACE TEMP TABLE w_pegout_rescored (txid VARCHAR, vout INTEGER);
-- Addresses whose follow step is computed again, the start addresses of the
-- chains followed again (these and more), and the published steps of the
-- others (a view: 12_a_follow.sql copies them once).
CREATE OR REPLACE TEMP TABLE w_follow_restep (address VARCHAR);
CREATE OR REPLACE TEMP TABLE w_follow_restarted (address VARCHAR);
CREATE OR REPLACE TEMP VIEW w_follow_kept AS
SELECT NULL::VARCHAR AS from_address, NULL::VARCHAR AS pegin_txid, NULL::INTEGER AS pegin_vout,
  NULL::VARCHAR AS pegout_txid, NULL::INTEGER AS pegout_vout, NULL::VARCHAR AS to_address, NULL::DOUBLE AS confidence
WHERE false;
