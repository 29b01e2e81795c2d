-- Staging tables of one `labels import` (src/analysis/labels.ts), filled by
-- appenders before the transaction that replaces the imported sources:
-- the labels, the sources they replace whole, and the pool lists' tags.
CREATE OR REPLACE TEMP TABLE w_label_import AS SELECT * FROM labels LIMIT 0;
CREATE OR REPLACE TEMP TABLE w_label_sources (source_kind VARCHAR NOT NULL, source_key VARCHAR NOT NULL);
CREATE OR REPLACE TEMP TABLE w_pool_tags_import AS SELECT * FROM label_pool_tags LIMIT 0;
