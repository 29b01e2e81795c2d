-- dumps/attribution.*: every attributed address, directly labelled or through
-- its cluster (a_attribution), one row per address.
SELECT address, entity, category, via, confidence, cluster_id, source, terms
FROM a_attribution
ORDER BY address
