-- a_attribution (docs/methodology.md "Labels and attribution"): every labelled
-- address directly (its winning label: the most confident, then the latest
-- imported, docs/labels.md), and the other addresses of a cluster holding an
-- institutional label (a category that propagates in w_label_categories:
-- exchange, service, pool, merchant, gambling) at that confidence × {{cluster_decay}}.
-- sanctioned, mixer and other (person-level, unknown) labels never propagate:
-- a common-input cluster can be a coinjoin or a payment batch, and wrongly
-- tainting a person is worse than missing a label. `source` and `terms` are
-- the winning label's source and its terms.
CREATE OR REPLACE TEMP TABLE a_attribution AS
WITH direct AS (
  SELECT address, entity, category, confidence, source, terms, imported_at
  FROM a_labels
  QUALIFY row_number() OVER (PARTITION BY address ORDER BY confidence DESC, imported_at DESC NULLS LAST, source, entity) = 1
), institutional AS (
  SELECT c.cluster_id, d.entity, d.category, d.confidence, d.source, d.terms
  FROM direct d JOIN a_clusters c USING (address)
  WHERE d.category IN (SELECT category FROM w_label_categories WHERE propagates)
  QUALIFY row_number() OVER (PARTITION BY c.cluster_id ORDER BY d.confidence DESC, d.imported_at DESC NULLS LAST, d.source, d.entity) = 1
)
SELECT d.address, d.entity, d.category, 'direct' AS via, d.confidence, c.cluster_id, d.source, d.terms
FROM direct d LEFT JOIN a_clusters c USING (address)
UNION ALL
SELECT c.address, s.entity, s.category, 'cluster' AS via, round(s.confidence * {{cluster_decay}}, 4) AS confidence, c.cluster_id, s.source, s.terms
FROM a_clusters c JOIN institutional s USING (cluster_id)
WHERE c.address NOT IN (SELECT address FROM direct);
