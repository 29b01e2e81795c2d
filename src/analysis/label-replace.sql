-- Replaces every imported source's labels and pool tags with the staged ones
-- (label-stage.sql), run in the import's transaction: a removal from a source
-- takes effect, and a failure leaves every source as it was. A label the
-- import leaves exactly as it was keeps its import time, so re-importing an
-- unchanged list changes no dump and no winner (docs/labels.md "Provenance").
UPDATE w_label_import i SET imported_at = l.imported_at
FROM labels l
WHERE l.address = i.address AND l.source_kind = i.source_kind AND l.source_key = i.source_key
  AND l.entity = i.entity AND l.category = i.category AND l.confidence = i.confidence AND l.source = i.source
  AND l.terms IS NOT DISTINCT FROM i.terms AND l.details IS NOT DISTINCT FROM i.details;
DELETE FROM labels WHERE (source_kind, source_key) IN (SELECT (source_kind, source_key) FROM w_label_sources);
INSERT INTO labels SELECT * FROM w_label_import;
UPDATE w_pool_tags_import i SET imported_at = t.imported_at
FROM label_pool_tags t
WHERE t.source_key = i.source_key AND t.pool = i.pool AND t.tag = i.tag AND t.source = i.source AND t.terms IS NOT DISTINCT FROM i.terms;
DELETE FROM label_pool_tags WHERE source_key IN (SELECT source_key FROM w_label_sources WHERE source_kind = 'pools');
INSERT INTO label_pool_tags SELECT * FROM w_pool_tags_import;
DROP TABLE w_label_import;
DROP TABLE w_label_sources;
DROP TABLE w_pool_tags_import;
