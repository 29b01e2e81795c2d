-- Peg-in and peg-out nodes as docs/api.md describes them, one JSON text per peg,
-- shared by the trace and block documents: only the pegs the documents to
-- render need (x_need_pegins, x_need_pegouts of dirty.sql). Needs macros.sql
-- and attribution.sql.

CREATE OR REPLACE TEMP TABLE x_pegin_inputs AS
SELECT i.pegin_txid AS txid,
  sorted_values(list({'k': i.n, 'v': {'address': i.address, 'value': coin_json(i.value), 'attribution': a.attribution}})) AS inputs
FROM analysed_pegin_inputs i LEFT JOIN x_attribution a ON a.address = i.address
WHERE i.pegin_txid IN (SELECT txid FROM x_need_pegins)
GROUP BY i.pegin_txid;

CREATE OR REPLACE TEMP TABLE x_pegin_links AS
SELECT l.pegin_txid AS txid, l.pegin_vout AS vout,
  sorted_values(list({'k': {'confidence': -l.confidence, 'block_gap': l.block_gap, 'txid': l.pegout_txid, 'vout': l.pegout_vout},
    'v': {'pegout_txid': l.pegout_txid, 'pegout_vout': l.pegout_vout, 'pegout_amount': coin_json(l.pegout_amount),
          'pegout_address': l.pegout_address, 'pegout_entity': a.entity, 'pegout_category': a.category,
          'confidence': l.confidence, 'block_gap': l.block_gap, 'candidate_count': l.candidate_count, 'reasons': l.reasons}})) AS links
FROM a_links l LEFT JOIN x_attribution a ON a.address = l.pegout_address
SEMI JOIN x_need_pegins n ON n.txid = l.pegin_txid AND n.vout = l.pegin_vout
GROUP BY l.pegin_txid, l.pegin_vout;

CREATE OR REPLACE TEMP TABLE x_pegout_links AS
SELECT l.pegout_txid AS txid, l.pegout_vout AS vout,
  sorted_values(list({'k': {'confidence': -l.confidence, 'block_gap': l.block_gap, 'txid': l.pegin_txid, 'vout': l.pegin_vout},
    'v': {'pegin_txid': l.pegin_txid, 'pegin_vout': l.pegin_vout, 'pegin_amount': coin_json(l.pegin_amount),
          'pegin_height': l.pegin_height, 'confidence': l.confidence, 'block_gap': l.block_gap,
          'candidate_count': l.candidate_count, 'reasons': l.reasons}})) AS links
FROM a_links l
SEMI JOIN x_need_pegouts n ON n.txid = l.pegout_txid AND n.vout = l.pegout_vout
GROUP BY l.pegout_txid, l.pegout_vout;

CREATE OR REPLACE TEMP TABLE x_pegin_nodes AS
SELECT p.txid, p.vout, p.height,
  to_json({'txid': p.txid, 'vout': p.vout, 'block_height': p.height, 'block_time': p.block_time, 'amount': coin_json(p.amount),
   'source_address': p.source_address, 'input_count': p.input_count,
   'inputs': coalesce(i.inputs, []), 'links': coalesce(l.links, []),
   'score': CASE WHEN s.txid IS NULL THEN NULL ELSE
     {'privacy_score': s.privacy_score, 'anonymity_set': s.anonymity_set,
      'max_link_confidence': s.max_link_confidence, 'reasons': s.reasons} END})::VARCHAR AS node
FROM analysed_pegins p
SEMI JOIN x_need_pegins n ON n.txid = p.txid AND n.vout = p.vout
LEFT JOIN x_pegin_inputs i ON i.txid = p.txid
LEFT JOIN x_pegin_links l ON l.txid = p.txid AND l.vout = p.vout
LEFT JOIN a_pegin_scores s ON s.txid = p.txid AND s.vout = p.vout;

CREATE OR REPLACE TEMP TABLE x_pegout_nodes AS
SELECT o.txid, o.vout, o.height, o.address,
  to_json({'txid': o.txid, 'vout': o.vout, 'block_height': o.height, 'block_time': o.block_time, 'amount': coin_json(o.amount),
   'address': o.address, 'attribution': a.attribution, 'links': coalesce(l.links, []),
   'score': CASE WHEN s.txid IS NULL THEN NULL ELSE
     {'risk_score': s.risk_score, 'dest_category': s.dest_category,
      'traceability': s.traceability, 'reasons': s.reasons} END})::VARCHAR AS node
FROM analysed_pegouts o
SEMI JOIN x_need_pegouts n ON n.txid = o.txid AND n.vout = o.vout
LEFT JOIN x_attribution a ON a.address = o.address
LEFT JOIN x_pegout_links l ON l.txid = o.txid AND l.vout = o.vout
LEFT JOIN a_pegout_scores s ON s.txid = o.txid AND s.vout = o.vout;
