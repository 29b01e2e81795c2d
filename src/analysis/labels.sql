-- Curated labels (pegscope labels import). Not derived: analyze only reads it.
-- One row per (address, source); a later import from the same source replaces the row.
CREATE TABLE IF NOT EXISTS labels (
  address VARCHAR NOT NULL,
  entity VARCHAR NOT NULL,
  category VARCHAR NOT NULL,
  confidence DOUBLE NOT NULL,
  source VARCHAR NOT NULL,
  imported_at BIGINT NOT NULL,
  PRIMARY KEY (address, source)
);
