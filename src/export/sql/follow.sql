-- follow documents (docs/api.md) at the default depth (follow_default_depth hops):
-- rows (q, has_file, body), one per address of this batch (x_render_keys); the
-- total is the cumulative confidence of the last hop kept. Needs
-- follow-hops.sql. Longer chains: follow-chain.sql.
SELECT a.address AS q, true AS has_file, to_json({
  'query': a.address, 'depth': {{follow_default_depth}},
  'hops': coalesce(h.hops[1:{{follow_default_depth}}], []),
  'total_confidence': coalesce(h.hops[least(len(h.hops), {{follow_default_depth}})].cumulative_confidence, 0)})::VARCHAR AS body
FROM x_addresses a
SEMI JOIN x_render_keys k ON k.kind = 'follow' AND k.q = a.address
LEFT JOIN x_follow_hops h ON h.start_address = a.address
