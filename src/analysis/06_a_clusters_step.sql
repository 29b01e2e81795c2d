-- Wallet clusters, step 2 (repeated until no label changes): each transaction
-- takes the smallest label of its addresses, each address the smallest label of
-- its transactions, then one pointer jump (label of my label) halves the distance.
CREATE OR REPLACE TEMP TABLE w_cluster_next AS
WITH tx AS (
  SELECT e.pegin_txid, min(l.label) AS label
  FROM w_cluster_edges e JOIN w_cluster_labels l USING (address)
  GROUP BY e.pegin_txid
), spread AS (
  SELECT e.address, min(tx.label) AS label
  FROM w_cluster_edges e JOIN tx USING (pegin_txid)
  GROUP BY e.address
)
SELECT s.address, least(s.label, coalesce(j.label, s.label)) AS label
FROM spread s LEFT JOIN spread j ON j.address = s.label;
