-- a_reuse: address reuse links — a peg-out paying an address that had funded an
-- earlier peg-in. One row per such peg-out, naming the latest peg-in funded by
-- that address before it (an ASOF join: a service address that funds thousands
-- of peg-ins and receives thousands of peg-outs must not become their product).
-- A peg-out whose output later funds a peg-in is a multi-hop step, not reuse:
-- a_follow covers it.
-- One peg-in per address and height (the greatest txid, vout): the ASOF join
-- picks an arbitrary row among equal heights, and the analysis must be
-- deterministic (an incremental export equals a full one byte for byte).
CREATE OR REPLACE TEMP TABLE w_funded AS
SELECT i.address, p.height, p.txid, p.vout
FROM pegin_inputs i JOIN w_pegins p ON p.txid = i.pegin_txid
WHERE i.address IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY i.address, p.height ORDER BY p.txid DESC, p.vout DESC) = 1;

CREATE OR REPLACE TEMP TABLE a_reuse AS
SELECT o.address, f.txid AS pegin_txid, f.vout AS pegin_vout, o.txid AS pegout_txid, o.vout AS pegout_vout
FROM (SELECT txid, vout, address, height - 1 AS before_height FROM w_pegouts WHERE address IS NOT NULL) o
ASOF JOIN w_funded f ON o.address = f.address AND o.before_height >= f.height;
