-- attribution_now(): what documents show of each address (its attribution
-- and its cluster) as a digest (macros.sql attribution_digest), which the
-- documents index keeps for the next export to compare with (peg-digests.sql
-- attribution_changed()). The digest hashes the attribution struct and the
-- cluster row as they are: casting each struct to text, and counting each
-- cluster's size again, took most of this step. A macro, not a table: only
-- the addresses whose digest changed are kept. Needs attribution.sql.
CREATE OR REPLACE TEMP MACRO attribution_now() AS TABLE
SELECT coalesce(a.address, c.address) AS address, attribution_digest(a.attribution, c.cluster_id, c.cluster_size) AS h
FROM x_attribution a FULL JOIN a_clusters c USING (address);
