-- How many documents each range kind will hold, before they are rendered, so
-- the prefix lengths can be chosen for all kinds at once (the export checks
-- these against the documents it then writes). Needs nodes.sql.
SELECT
  (SELECT count(*) FROM x_addresses)
    + (SELECT count(DISTINCT txid) FROM x_pegin_nodes) + (SELECT count(DISTINCT txid) FROM x_pegout_nodes) AS trace,
  (SELECT count(*) FROM x_addresses) AS address,
  (SELECT count(*) FROM x_addresses) AS follow,
  (SELECT count(*) FROM analysed_blocks WHERE pegin_count + pegout_count > 0) AS block
