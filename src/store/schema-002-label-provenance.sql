-- Version 2: labels keep their provenance (source kind and key, terms,
-- details), and pool lists keep their coinbase tags. A version-1 database
-- made the labels table on first use, so it may have none yet; its rows
-- become labels of a label file (kind file), keyed by their source.
CREATE TABLE IF NOT EXISTS labels (
  address VARCHAR NOT NULL, entity VARCHAR NOT NULL, category VARCHAR NOT NULL, confidence DOUBLE NOT NULL,
  source VARCHAR NOT NULL, imported_at BIGINT NOT NULL, PRIMARY KEY (address, source)
);
CREATE TABLE labels_v2 (
  address VARCHAR NOT NULL,
  entity VARCHAR NOT NULL,
  category VARCHAR NOT NULL,
  confidence DOUBLE NOT NULL,
  source_kind VARCHAR NOT NULL,
  source_key VARCHAR NOT NULL,
  source VARCHAR NOT NULL,
  terms VARCHAR,
  details VARCHAR,
  imported_at BIGINT NOT NULL,
  PRIMARY KEY (address, source_kind, source_key)
);
INSERT INTO labels_v2 SELECT address, entity, category, confidence, 'file', source, source, NULL, NULL, imported_at FROM labels;
DROP TABLE labels;
ALTER TABLE labels_v2 RENAME TO labels;
CREATE TABLE label_pool_tags (
  source_key VARCHAR NOT NULL,
  source VARCHAR NOT NULL,
  terms VARCHAR,
  imported_at BIGINT NOT NULL,
  pool VARCHAR NOT NULL,
  tag VARCHAR NOT NULL,
  PRIMARY KEY (source_key, pool, tag)
);
