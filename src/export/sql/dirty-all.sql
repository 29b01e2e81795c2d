-- The tables of dirty.sql for an export that renders every document (no
-- previous release to build on): every peg and every key, without comparing
-- anything (at x10 comparing took 12–22 s only to find everything dirty).
-- Needs keys.sql.
CREATE OR REPLACE TEMP TABLE x_dirty_pegins AS SELECT txid, vout FROM analysed_pegins;
CREATE OR REPLACE TEMP TABLE x_dirty_pegouts AS SELECT txid, vout FROM analysed_pegouts;
CREATE OR REPLACE TEMP TABLE x_dirty_keys AS FROM x_keys;
CREATE OR REPLACE TEMP TABLE x_need_pegins AS FROM x_dirty_pegins;
CREATE OR REPLACE TEMP TABLE x_need_pegouts AS FROM x_dirty_pegouts;
