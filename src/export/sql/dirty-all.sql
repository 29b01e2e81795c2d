-- The tables of dirty.sql for an export that renders every document (no
-- previous release to build on): every peg and every key, without comparing
-- anything (at x10 comparing took 12–22 s only to find everything dirty).
-- Needs keys.sql.
CREATE OR REPLACE TEMP TABLE x_dirty_pegins AS SELECT txid, vout FROM analysed_pegins;
CREATE OR REPLACE TEMP TABLE x_dirty_pegouts AS SELECT txid, vout FROM analysed_pegouts;
CREATE OR REPLACE TEMP TABLE x_dirty_keys AS FROM x_keys;
CREATE OR REPLACE TEMP TABLE x_need_pegins AS FROM x_dirty_pegins;
CREATE OR REPLACE TEMP TABLE x_need_pegouts AS FROM x_dirty_pegouts;
-- Which peg-ins each address funds (dirty.sql: only the dirty ones).
CREATE OR REPLACE TEMP TABLE x_address_pegins AS
SELECT DISTINCT i.address, p.txid, p.vout
FROM analysed_pegin_inputs i JOIN analysed_pegins p ON p.txid = i.pegin_txid
WHERE i.address IS NOT NULL;
