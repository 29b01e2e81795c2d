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

-- Address labels (`pegscope labels import`, docs/labels.md). Not derived:
-- analyze only reads them. One row per address and source; a source is
-- identified by its kind and key, and importing it again replaces all its rows.
CREATE TABLE IF NOT EXISTS labels (
  address VARCHAR NOT NULL,
  entity VARCHAR NOT NULL,
  category VARCHAR NOT NULL,
  confidence DOUBLE NOT NULL,
  source_kind VARCHAR NOT NULL, -- file (CSV/JSON), ofac, tagpack or pools
  source_key VARCHAR NOT NULL,  -- the source within its kind: a file's source value, SDN, a TagPack's title, a pool list's file name
  source VARCHAR NOT NULL,      -- the source as documents name it (attribution.source), e.g. OFAC SDN 2026-11-20
  terms VARCHAR,                -- the source's terms or licence; NULL when it states none
  details VARCHAR,              -- what the source said besides the label (OFAC programs, GraphSense names), NULL when nothing
  imported_at BIGINT NOT NULL,  -- unix seconds of the import that wrote the label as it stands
  PRIMARY KEY (address, source_kind, source_key)
);

-- Coinbase tags of the imported pool lists: analyze labels the payout address
-- of every block whose coinbase carries one (src/analysis/07_a_labels.sql).
CREATE TABLE IF NOT EXISTS label_pool_tags (
  source_key VARCHAR NOT NULL,  -- the pool list's file name
  source VARCHAR NOT NULL,
  terms VARCHAR,
  imported_at BIGINT NOT NULL,
  pool VARCHAR NOT NULL,
  tag VARCHAR NOT NULL,
  PRIMARY KEY (source_key, pool, tag)
);

-- The watchlist (`pegscope watch`, docs/notifications.md): the operator's own,
-- never published. secret is the watch's whsec_ signing key: never logged.
CREATE TABLE IF NOT EXISTS watches (
  id VARCHAR PRIMARY KEY,
  address VARCHAR NOT NULL,
  url VARCHAR NOT NULL,
  secret VARCHAR NOT NULL,
  label VARCHAR,
  min_confidence DOUBLE NOT NULL,
  since_height INTEGER NOT NULL,
  attribution VARCHAR,        -- the address's attribution last reported (JSON; 'null' for none)
  created_at BIGINT NOT NULL  -- unix ms
);

-- Every event found for a watch, once: id is derived from the fact it reports,
-- so finding the fact again mints nothing. body is the JSON sent, fixed when
-- the event is recorded so every attempt sends the same bytes.
CREATE TABLE IF NOT EXISTS watch_events (
  id VARCHAR PRIMARY KEY,
  watch_id VARCHAR NOT NULL,
  type VARCHAR NOT NULL,
  height INTEGER NOT NULL,
  block_hash VARCHAR,         -- the block the fact is in; NULL for attribution.changed
  txid VARCHAR,
  vout INTEGER,
  body VARCHAR NOT NULL,
  retracted BOOLEAN NOT NULL,
  created_at BIGINT NOT NULL
);

-- One delivery per event, written in the transaction that records the event.
-- status: pending (next_attempt_at, unix ms), delivered, failed (gave up after
-- the retry window), cancelled (its block was gone before any attempt).
-- seq: the order events were found in, the order a watch's are sent in.
CREATE TABLE IF NOT EXISTS watch_outbox (
  event_id VARCHAR PRIMARY KEY,
  watch_id VARCHAR NOT NULL,
  seq BIGINT NOT NULL,
  status VARCHAR NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  last_attempt_at BIGINT,
  last_error VARCHAR
);
