-- trace documents (docs/api.md), one row per query of this batch (x_render_keys): an
-- address, peg-in txid or peg-out (HogEx) txid: rows (q, has_file, body),
-- body the compact JSON of the `trace` object.
-- Needs macros.sql, keys.sql, attribution.sql, dirty.sql and nodes.sql.
WITH addr_pegins AS (
  SELECT ap.address, sorted_joined(list({'k': {'height': n.height, 'txid': n.txid, 'vout': n.vout}, 'v': n.node})) AS nodes
  FROM x_address_pegins ap JOIN x_pegin_nodes n ON n.txid = ap.txid AND n.vout = ap.vout
  SEMI JOIN x_render_keys k ON k.kind = 'trace' AND k.q = ap.address
  GROUP BY ap.address
),
addr_pegouts AS (
  SELECT address, sorted_joined(list({'k': {'height': height, 'txid': txid, 'vout': vout}, 'v': node})) AS nodes
  FROM x_pegout_nodes SEMI JOIN x_render_keys k ON k.kind = 'trace' AND k.q = x_pegout_nodes.address GROUP BY address
)
SELECT a.address AS q, true AS has_file, json_extend(to_json({
  'query': a.address, 'type': 'address', 'attribution': attr.attribution,
  'cluster': CASE WHEN c.cluster_id IS NULL THEN NULL ELSE {'cluster_id': c.cluster_id, 'size': c.cluster_size} END})::VARCHAR,
  ',"pegins":' || json_array(pi.nodes) || ',"pegouts":' || json_array(po.nodes)) AS body
FROM x_addresses a
SEMI JOIN x_render_keys k ON k.kind = 'trace' AND k.q = a.address
LEFT JOIN x_attribution attr ON attr.address = a.address
LEFT JOIN a_clusters c ON c.address = a.address
LEFT JOIN addr_pegins pi ON pi.address = a.address
LEFT JOIN addr_pegouts po ON po.address = a.address
UNION ALL
SELECT txid AS q, true, '{"query":' || to_json(txid) || ',"type":"pegin_tx","attribution":null,"cluster":null,"pegins":'
  || json_array(sorted_joined(list({'k': vout, 'v': node}))) || ',"pegouts":[]}'
FROM x_pegin_nodes WHERE txid IN (SELECT q FROM x_render_keys WHERE kind = 'trace') GROUP BY txid
UNION ALL
SELECT txid AS q, true, '{"query":' || to_json(txid) || ',"type":"pegout_tx","attribution":null,"cluster":null,"pegins":[],"pegouts":'
  || json_array(sorted_joined(list({'k': vout, 'v': node}))) || '}'
FROM x_pegout_nodes WHERE txid IN (SELECT q FROM x_render_keys WHERE kind = 'trace') GROUP BY txid
