-- Base tables written by `pegscope scan`. Amounts are BIGINT litoshi.
-- The current schema, given whole to a new database. Changing it takes a
-- migration for existing ones (schema-NNN-what.sql next to this file; schema.ts).
-- Rows above meta.cursor_height are never trusted: the scanner deletes them
-- before it continues, so a killed batch leaves nothing half-stored.
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);

CREATE TABLE IF NOT EXISTS blocks (
  height INTEGER NOT NULL,
  hash VARCHAR NOT NULL,
  prev_hash VARCHAR NOT NULL,
  time BIGINT NOT NULL,
  tx_count INTEGER NOT NULL,
  supply BIGINT,              -- HogEx vout[0]; NULL before MWEB
  hogex_txid VARCHAR,
  pegin_count INTEGER NOT NULL,
  pegout_count INTEGER NOT NULL,
  pegin_total BIGINT NOT NULL,
  pegout_total BIGINT NOT NULL,
  mweb_num_txos BIGINT,
  mweb_num_kernels INTEGER,
  coinbase_address VARCHAR,
  coinbase_tag VARCHAR
);

CREATE TABLE IF NOT EXISTS pegins (
  txid VARCHAR NOT NULL,
  vout INTEGER NOT NULL,
  height INTEGER NOT NULL,
  block_time BIGINT NOT NULL,
  amount BIGINT NOT NULL,
  kernel_id VARCHAR NOT NULL,
  input_count INTEGER NOT NULL,
  source_address VARCHAR      -- input address contributing the most value
);

CREATE TABLE IF NOT EXISTS pegin_inputs (
  pegin_txid VARCHAR NOT NULL,
  n INTEGER NOT NULL,
  height INTEGER NOT NULL,
  prev_txid VARCHAR NOT NULL,
  prev_vout INTEGER NOT NULL,
  address VARCHAR,
  value BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS pegouts (
  txid VARCHAR NOT NULL,      -- HogEx txid
  vout INTEGER NOT NULL,
  height INTEGER NOT NULL,
  block_time BIGINT NOT NULL,
  amount BIGINT NOT NULL,
  address VARCHAR,
  script_hex VARCHAR NOT NULL
);
