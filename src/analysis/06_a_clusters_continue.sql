-- Wallet clusters when continuing the published analysis, step 1 of 3: only
-- the peg-in transactions of the new blocks (height >= {{new_from}}) can
-- join addresses, so only they are propagated over. Each of their addresses
-- that already had a cluster stands for that whole cluster (a node named by
-- its cluster_id, with the cluster's first height); a new address stands for
-- itself. Nodes are numbered in the full run's order (first height, then
-- address), so 06_a_clusters_step.sql gives every merged cluster the id a
-- full run gives it; 06_a_clusters_merge.sql writes a_clusters.
-- w_published_clusters is the published a_clusters.
CREATE OR REPLACE TEMP TABLE w_cluster_new_inputs AS
SELECT i.pegin_txid, coalesce(c.cluster_id, i.address) AS node, coalesce(c.first_height, i.height) AS height
FROM pegin_inputs i LEFT JOIN w_published_clusters c USING (address)
WHERE i.address IS NOT NULL AND i.height >= {{new_from}} AND i.height <= {{as_of_height}};

CREATE OR REPLACE TEMP TABLE w_cluster_addresses AS
SELECT node AS address, first_height, row_number() OVER (ORDER BY first_height, node) AS aid
FROM (SELECT node, min(height) AS first_height FROM w_cluster_new_inputs GROUP BY node);

CREATE OR REPLACE TEMP TABLE w_cluster_edges AS
SELECT DISTINCT t.tid, a.aid
FROM w_cluster_new_inputs i
JOIN w_cluster_addresses a ON a.address = i.node
JOIN (SELECT pegin_txid, row_number() OVER () AS tid
      FROM (SELECT DISTINCT pegin_txid FROM w_cluster_new_inputs)) t USING (pegin_txid);

CREATE OR REPLACE TEMP TABLE w_cluster_labels AS
SELECT aid, aid AS label FROM w_cluster_addresses;
