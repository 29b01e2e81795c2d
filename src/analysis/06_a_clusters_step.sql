-- Wallet clusters, step 2 (repeated until no label changes): each transaction
-- takes the smallest label of its addresses, each address the smallest label of
-- its transactions, then one pointer jump (label of my label) halves the distance.
CREATE OR REPLACE TEMP TABLE w_cluster_next AS
WITH tx AS (
  SELECT e.tid, min(l.label) AS label
  FROM w_cluster_edges e JOIN w_cluster_labels l USING (aid)
  GROUP BY e.tid
), spread AS (
  SELECT e.aid, min(tx.label) AS label
  FROM w_cluster_edges e JOIN tx USING (tid)
  GROUP BY e.aid
)
SELECT s.aid, least(s.label, coalesce(j.label, s.label)) AS label
FROM spread s LEFT JOIN spread j ON j.aid = s.label;
