-- The top links in API order (confidence desc, then block_gap asc), as link
-- records (docs/api.md), as one JSON list. $1 = how many. Needs macros.sql and nodes.sql.
SELECT json_plain(to_json(list(rec ORDER BY confidence DESC, block_gap, pegout_txid, pegout_vout, pegin_txid, pegin_vout))::VARCHAR) AS links
FROM (
  SELECT l.confidence, l.block_gap, l.pegout_txid, l.pegout_vout, l.pegin_txid, l.pegin_vout,
    {'pegout_txid': l.pegout_txid, 'pegout_vout': l.pegout_vout, 'pegout_height': l.pegout_height,
     'pegout_amount': coin_json(l.pegout_amount), 'pegout_address': l.pegout_address,
     'pegout_entity': a.entity, 'pegout_category': a.category,
     'pegin_txid': l.pegin_txid, 'pegin_vout': l.pegin_vout, 'pegin_height': l.pegin_height,
     'pegin_amount': coin_json(l.pegin_amount), 'confidence': l.confidence, 'risk_score': s.risk_score,
     'block_gap': l.block_gap, 'candidate_count': l.candidate_count, 'reasons': l.reasons} AS rec
  -- The best links first, then what they show: joining every link cost more than the rest.
  FROM (FROM a_links ORDER BY confidence DESC, block_gap, pegout_txid, pegout_vout, pegin_txid, pegin_vout LIMIT $1) l
  LEFT JOIN x_attribution a ON a.address = l.pegout_address
  LEFT JOIN a_pegout_scores s ON s.txid = l.pegout_txid AND s.vout = l.pegout_vout
);
