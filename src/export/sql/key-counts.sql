-- Keys per kind (x_keys), counted table by table as x_keys unites them (a
-- count of each table, not a grouping of every key): what chooses each
-- kind's range prefix length, and what doc-counts.sql compares the
-- documents with.
WITH n AS (
  SELECT (SELECT count(*) FROM x_addresses) AS addresses,
    (SELECT count(*) FROM x_pegin_txids) + (SELECT count(*) FROM x_pegout_txids) AS txids,
    (SELECT count(*) FROM x_follow_chains) AS chains, (SELECT count(*) FROM x_block_keys) AS blocks
)
SELECT kind, n FROM (
  SELECT 'trace' AS kind, addresses + txids AS n FROM n
  UNION ALL SELECT 'address', addresses FROM n
  UNION ALL SELECT 'follow', addresses FROM n
  UNION ALL SELECT 'follow_chain', chains FROM n
  UNION ALL SELECT 'block', blocks FROM n
) WHERE n > 0
