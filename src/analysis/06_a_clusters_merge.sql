-- Wallet clusters when continuing, step 3: a_clusters holds the clusters the
-- new blocks touched, every node's published members moved into the cluster it
-- joined (its id and first height) beside the new addresses. A new cluster is
-- made of nodes only, so its size is counted here; analyze.ts keeps the
-- published clusters that no node stands for.
CREATE OR REPLACE TEMP TABLE w_cluster_moves AS
SELECT a.address AS node, c.address AS cluster_id, c.first_height
FROM w_cluster_labels l
JOIN w_cluster_addresses a ON a.aid = l.aid
JOIN w_cluster_addresses c ON c.aid = l.label;

CREATE OR REPLACE TEMP TABLE a_clusters AS
WITH members AS (
  SELECT p.address, m.cluster_id, m.first_height
  FROM w_published_clusters p JOIN w_cluster_moves m ON m.node = p.cluster_id
  UNION ALL
  SELECT m.node, m.cluster_id, m.first_height
  FROM w_cluster_moves m ANTI JOIN w_published_clusters p ON p.address = m.node
)
SELECT address, cluster_id, count(*) OVER (PARTITION BY cluster_id) AS cluster_size, first_height
FROM members;
