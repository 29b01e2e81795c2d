-- block documents (docs/api.md): rows (q = the height, has_file, hash, body) for every block with pegs in this batch (x_render_keys). Needs nodes.sql.
WITH heights AS (
  SELECT q::INTEGER AS height FROM x_render_keys WHERE kind = 'block'
),
bi AS (
  SELECT height, sorted_joined(list({'k': {'txid': txid, 'vout': vout}, 'v': node})) AS nodes FROM x_pegin_nodes SEMI JOIN heights USING (height) GROUP BY height
),
bo AS (
  SELECT height, sorted_joined(list({'k': {'txid': txid, 'vout': vout}, 'v': node})) AS nodes FROM x_pegout_nodes SEMI JOIN heights USING (height) GROUP BY height
)
SELECT b.height::VARCHAR AS q, true AS has_file, b.hash, json_extend(to_json({
  'height': b.height, 'hash': b.hash, 'time': b.time, 'supply': coin_json(b.supply)})::VARCHAR,
  ',"pegins":' || json_array(bi.nodes) || ',"pegouts":' || json_array(bo.nodes)) AS body
FROM analysed_blocks b
LEFT JOIN bi ON bi.height = b.height
LEFT JOIN bo ON bo.height = b.height
SEMI JOIN heights h ON h.height = b.height
WHERE b.pegin_count + b.pegout_count > 0
