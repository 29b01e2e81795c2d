-- dumps/clusters/*: every address that funded a peg-in, with its wallet
-- cluster (common-input heuristic, a_clusters), partitioned by the height
-- the cluster first funded a peg-in: a new block rewrites only the
-- partitions of the clusters it grows or merges.
SELECT address, cluster_id, cluster_size, first_height
FROM a_clusters
ORDER BY first_height, cluster_id, address
