-- Wallet clusters, step 1 of 3: the co-spend graph. Addresses spent together as
-- inputs of one peg-in transaction share an owner (common-input heuristic).
-- Every address starts as its own label; 06_a_clusters_step.sql propagates the
-- smallest label until nothing changes; 06_a_clusters_final.sql writes a_clusters.
CREATE OR REPLACE TEMP TABLE w_cluster_edges AS
SELECT DISTINCT i.pegin_txid, i.address
FROM pegin_inputs i
WHERE i.address IS NOT NULL AND i.height <= {{as_of_height}};

CREATE OR REPLACE TEMP TABLE w_cluster_labels AS
SELECT DISTINCT address, address AS label FROM w_cluster_edges;
