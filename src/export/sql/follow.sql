-- follow documents (SPEC §3) at full depth: rows (q, has_file, body), one per
-- address of x_addresses (nodes.sql). data/follow/<q>.json holds the whole
-- chain (a_follow stops at follow_max_hops, src/domain/model.ts) only where it has hops (has_file).
WITH hops AS (
  SELECT f.start_address,
    list({'from': f.from_address, 'pegin': {'txid': f.pegin_txid, 'vout': f.pegin_vout},
          'pegout': {'txid': f.pegout_txid, 'vout': f.pegout_vout}, 'to': f.to_address,
          'to_attribution': attr.attribution, 'confidence': f.confidence,
          'cumulative_confidence': f.cumulative_confidence} ORDER BY f.hop) AS hops,
    arg_max(f.cumulative_confidence, f.hop) AS total
  FROM a_follow f LEFT JOIN x_attribution attr ON attr.address = f.to_address
  GROUP BY f.start_address
)
SELECT a.address AS q, coalesce(len(h.hops), 0) > 0 AS has_file, to_json({
  'query': a.address, 'depth': {{follow_max_hops}}, 'hops': coalesce(h.hops, []),
  'total_confidence': coalesce(h.total, 0)})::VARCHAR AS body
FROM x_addresses a LEFT JOIN hops h ON h.start_address = a.address
ORDER BY q
