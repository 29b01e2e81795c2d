-- Wallet clusters, step 3: a_clusters with the smallest address as cluster_id.
CREATE OR REPLACE TEMP TABLE a_clusters AS
SELECT address, label AS cluster_id, count(*) OVER (PARTITION BY label) AS cluster_size
FROM w_cluster_labels;
