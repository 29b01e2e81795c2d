-- x_attribution: the attribution every document shows for an address (the
-- most confident label, direct or through its cluster), as one struct.
CREATE OR REPLACE TEMP TABLE x_attribution AS
SELECT address, entity, category,
  {'entity': entity, 'category': category, 'via': via, 'confidence': confidence, 'cluster_id': cluster_id, 'source': source} AS attribution
FROM a_attribution
QUALIFY row_number() OVER (PARTITION BY address ORDER BY confidence DESC, entity) = 1;
