-- dumps/clusters.*: every address that funded a peg-in, with its wallet
-- cluster (common-input heuristic, a_clusters).
SELECT address, cluster_id, cluster_size
FROM a_clusters
ORDER BY cluster_id, address
