-- What a run scores and follows again besides its new pegs: nothing in a full
-- run, where every peg is new. A continuing run fills these tables
-- (10_w_rescored_continue.sql) with the older pegs and addresses whose
-- published scores or follow chains the new blocks can change; the later
-- steps compute those and analyze.ts keeps every other published row.
CREATE OR REPLACE TEMP TABLE w_pegin_rescored (txid VARCHAR, vout INTEGER, height INTEGER, anonymity_set BIGINT);
CREATE OR REPLACE TEMP TABLE w_pegout_rescored (txid VARCHAR, vout INTEGER);
-- Addresses whose follow step is computed again, the start addresses of the
-- chains followed again (these and more), and the published steps of the others.
CREATE OR REPLACE TEMP TABLE w_follow_restep (address VARCHAR);
CREATE OR REPLACE TEMP TABLE w_follow_restarted (address VARCHAR);
CREATE OR REPLACE TEMP TABLE w_follow_kept (from_address VARCHAR, pegin_txid VARCHAR, pegin_vout INTEGER,
  pegout_txid VARCHAR, pegout_vout INTEGER, to_address VARCHAR, confidence DOUBLE);
