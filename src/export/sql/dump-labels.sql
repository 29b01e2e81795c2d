-- dumps/labels.*: every label the analysis used (a_labels), with its
-- provenance: its source, the source's terms and when it was imported
-- (docs/labels.md). One row per address and source.
SELECT address, entity, category, confidence, source, source_kind, terms, details, imported_at
FROM a_labels
ORDER BY address, source_kind, source
