-- Wallet clusters, step 1 of 3: the co-spend graph. Addresses spent together as
-- inputs of one peg-in transaction share an owner (common-input heuristic).
-- Addresses and transactions get integer ids (aid in order of first funding
-- height, then address, so the smallest id is the cluster's first address:
-- a cluster keeps its id as it grows, and changes it only when it merges
-- into an older one); every address starts as its own label;
-- 06_a_clusters_step.sql propagates the smallest label until nothing changes;
-- 06_a_clusters_final.sql writes a_clusters.
CREATE OR REPLACE TEMP TABLE w_cluster_addresses AS
SELECT address, first_height, row_number() OVER (ORDER BY first_height, address) AS aid
FROM (SELECT address, min(height) AS first_height FROM pegin_inputs
      WHERE address IS NOT NULL AND height <= {{as_of_height}} GROUP BY address);

CREATE OR REPLACE TEMP TABLE w_cluster_edges AS
SELECT DISTINCT t.tid, a.aid
FROM pegin_inputs i
JOIN w_cluster_addresses a USING (address)
JOIN (SELECT pegin_txid, row_number() OVER () AS tid
      FROM (SELECT DISTINCT pegin_txid FROM pegin_inputs WHERE height <= {{as_of_height}})) t USING (pegin_txid)
WHERE i.height <= {{as_of_height}};

CREATE OR REPLACE TEMP TABLE w_cluster_labels AS
SELECT aid, aid AS label FROM w_cluster_addresses;
