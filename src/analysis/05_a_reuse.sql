-- a_reuse: address reuse links — a peg-out paying an address that had funded an
-- earlier peg-in. (A peg-out whose output later funds a peg-in is a multi-hop
-- step, not reuse: a_follow covers it.)
CREATE OR REPLACE TEMP TABLE a_reuse AS
SELECT DISTINCT i.address, p.txid AS pegin_txid, p.vout AS pegin_vout, o.txid AS pegout_txid, o.vout AS pegout_vout
FROM pegin_inputs i
JOIN w_pegins p ON p.txid = i.pegin_txid
JOIN w_pegouts o ON o.address = i.address
WHERE i.address IS NOT NULL AND o.height > p.height;
