-- Version 3: the watchlist, its events and their outbox (docs/notifications.md).

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
