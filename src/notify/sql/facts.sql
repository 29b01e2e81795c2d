-- Every fact about a watched address in a block at or above its watch's
-- since_height (docs/notifications.md): the peg-ins it funds (it is one of
-- their inputs), the peg-outs it receives, and the links at or above the
-- watch's minimum confidence that touch it (its peg-out, or a peg-in it
-- funds). A link is dated by its peg-out, the later of its two pegs.
WITH funded AS (
  SELECT DISTINCT w.id AS watch_id, i.pegin_txid AS txid
  FROM watches w JOIN pegin_inputs i ON i.address = w.address AND i.height >= w.since_height
)
SELECT 'pegin.funded' AS type, f.watch_id, p.txid, p.vout, p.height, p.amount, b.hash AS block_hash,
       NULL::VARCHAR AS pegin_txid, NULL::INTEGER AS pegin_vout, NULL::INTEGER AS pegin_height, NULL::BIGINT AS pegin_amount, NULL::DOUBLE AS confidence
FROM funded f JOIN pegins p USING (txid) JOIN blocks b ON b.height = p.height
UNION ALL
SELECT 'pegout.received', w.id, o.txid, o.vout, o.height, o.amount, b.hash, NULL, NULL, NULL, NULL, NULL
FROM watches w JOIN pegouts o ON o.address = w.address AND o.height >= w.since_height
JOIN blocks b ON b.height = o.height
UNION ALL
SELECT 'link.found', w.id, l.pegout_txid, l.pegout_vout, l.pegout_height, l.pegout_amount, b.hash,
       l.pegin_txid, l.pegin_vout, l.pegin_height, l.pegin_amount, l.confidence
FROM watches w JOIN a_links l ON l.confidence >= w.min_confidence AND l.pegout_height >= w.since_height
  AND (l.pegout_address = w.address
       OR EXISTS (SELECT 1 FROM pegin_inputs i WHERE i.pegin_txid = l.pegin_txid AND i.address = w.address))
JOIN blocks b ON b.height = l.pegout_height
ORDER BY height, type, txid, vout, pegin_txid, pegin_vout, watch_id
