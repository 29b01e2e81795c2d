-- address documents (docs/api.md): rows (q, has_file, body), one per address of this batch (x_render_keys).
WITH funded AS (
  SELECT ap.address, count(*) AS n, sum(p.amount) AS total
  FROM x_address_pegins ap JOIN analysed_pegins p ON p.txid = ap.txid AND p.vout = ap.vout
  SEMI JOIN x_render_keys k ON k.kind = 'address' AND k.q = ap.address
  GROUP BY ap.address
),
received AS (
  SELECT address, count(*) AS n, sum(amount) AS total FROM analysed_pegouts
  SEMI JOIN x_render_keys k ON k.kind = 'address' AND k.q = analysed_pegouts.address GROUP BY address
)
SELECT a.address AS q, true AS has_file, to_json({
  'address': a.address, 'attribution': attr.attribution,
  'pegouts_received': {'count': coalesce(r.n, 0), 'total': coin_json(coalesce(r.total, 0))},
  'pegins_funded': {'count': coalesce(f.n, 0), 'total': coin_json(coalesce(f.total, 0))}})::VARCHAR AS body
FROM x_addresses a
SEMI JOIN x_render_keys k ON k.kind = 'address' AND k.q = a.address
LEFT JOIN x_attribution attr ON attr.address = a.address
LEFT JOIN funded f ON f.address = a.address
LEFT JOIN received r ON r.address = a.address
