-- The whole follow chain (up to follow_max_hops) of every address whose chain
-- is longer than the default depth, in this batch (x_render_keys): rows (q, has_file, body). The router and
-- the client cut these for a depth above the default; shorter chains are
-- whole in the default documents (follow.sql). Needs follow-hops.sql.
SELECT h.start_address AS q, true AS has_file, to_json({
  'query': h.start_address, 'depth': {{follow_max_hops}}, 'hops': h.hops,
  'total_confidence': h.hops[len(h.hops)].cumulative_confidence})::VARCHAR AS body
FROM x_follow_hops h
SEMI JOIN x_render_keys k ON k.kind = 'follow_chain' AND k.q = h.start_address
WHERE len(h.hops) > {{follow_default_depth}}
