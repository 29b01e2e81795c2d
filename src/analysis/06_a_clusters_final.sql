-- Wallet clusters, step 3: a_clusters with the smallest address as cluster_id.
CREATE OR REPLACE TEMP TABLE a_clusters AS
SELECT a.address, c.address AS cluster_id, count(*) OVER (PARTITION BY l.label) AS cluster_size
FROM w_cluster_labels l
JOIN w_cluster_addresses a ON a.aid = l.aid
JOIN w_cluster_addresses c ON c.aid = l.label;
