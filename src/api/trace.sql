-- trace documents (SPEC §3), one row per query: every address, peg-in txid and
-- peg-out (HogEx) txid. `body` is the compact JSON of the `trace` object.
-- Needs the x_* tables of nodes.sql.
WITH clusters AS (
  SELECT address, cluster_id, count(*) OVER (PARTITION BY cluster_id) AS size FROM a_clusters
),
addr_pegins AS (
  SELECT ap.address, list(n.node ORDER BY n.height, n.txid, n.vout) AS nodes
  FROM x_address_pegins ap JOIN x_pegin_nodes n ON n.txid = ap.txid AND n.vout = ap.vout
  GROUP BY ap.address
),
addr_pegouts AS (
  SELECT address, list(node ORDER BY height, txid, vout) AS nodes
  FROM x_pegout_nodes WHERE address IS NOT NULL GROUP BY address
)
SELECT a.address AS q, to_json({
  'query': a.address, 'type': 'address', 'attribution': attr.attribution,
  'cluster': CASE WHEN c.cluster_id IS NULL THEN NULL ELSE {'cluster_id': c.cluster_id, 'size': c.size} END,
  'pegins': coalesce(pi.nodes, []), 'pegouts': coalesce(po.nodes, [])})::VARCHAR AS body
FROM x_addresses a
LEFT JOIN x_attribution attr ON attr.address = a.address
LEFT JOIN clusters c ON c.address = a.address
LEFT JOIN addr_pegins pi ON pi.address = a.address
LEFT JOIN addr_pegouts po ON po.address = a.address
UNION ALL
SELECT txid AS q, to_json({'query': txid, 'type': 'pegin_tx', 'attribution': NULL, 'cluster': NULL,
  'pegins': list(node ORDER BY vout), 'pegouts': []})::VARCHAR
FROM x_pegin_nodes GROUP BY txid
UNION ALL
SELECT txid AS q, to_json({'query': txid, 'type': 'pegout_tx', 'attribution': NULL, 'cluster': NULL,
  'pegins': [], 'pegouts': list(node ORDER BY vout)})::VARCHAR
FROM x_pegout_nodes GROUP BY txid
ORDER BY q;
