-- Wallet clusters, step 3: a_clusters with the cluster's first address
-- (first to fund a peg-in, the smallest of those at that height) as
-- cluster_id, and the height the cluster first funded a peg-in.
CREATE OR REPLACE TEMP TABLE a_clusters AS
SELECT a.address, c.address AS cluster_id, count(*) OVER (PARTITION BY l.label) AS cluster_size, c.first_height
FROM w_cluster_labels l
JOIN w_cluster_addresses a ON a.aid = l.aid
JOIN w_cluster_addresses c ON c.aid = l.label;
