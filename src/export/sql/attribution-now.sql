-- x_attr_now: what documents show of each address (its attribution and its
-- cluster), and its digest (macros.sql attribution_digest), which the
-- documents index keeps for the next export to compare with (peg-digests.sql
-- attribution_changed()). Needs attribution.sql.
CREATE OR REPLACE TEMP TABLE x_attr_now AS
SELECT *, attribution_digest(attribution, cluster_id, cluster_size) AS h FROM (
  SELECT coalesce(a.address, c.address) AS address, a.attribution::VARCHAR AS attribution, c.cluster_id, c.cluster_size
  FROM x_attribution a
  FULL JOIN (SELECT address, cluster_id, count(*) OVER (PARTITION BY cluster_id) AS cluster_size FROM a_clusters) c USING (address)
);
