-- x_attr_now: what documents show of each address (its attribution and its
-- cluster), and its digest (macros.sql attribution_digest), which the
-- documents index keeps for the next export to compare with (peg-digests.sql
-- attribution_changed()). The digest hashes the attribution struct and the
-- cluster row as they are: casting each struct to text, and counting each
-- cluster's size again, took most of this step. Needs attribution.sql.
CREATE OR REPLACE TEMP TABLE x_attr_now AS
SELECT coalesce(a.address, c.address) AS address, c.cluster_id, c.cluster_size,
  attribution_digest(a.attribution, c.cluster_id, c.cluster_size) AS h
FROM x_attribution a FULL JOIN a_clusters c USING (address);
