-- a_reuse: address reuse links — a peg-out paying an address that had funded an
-- earlier peg-in. One row per such peg-out, naming the latest peg-in funded by
-- that address before it (an ASOF join: a service address that funds thousands
-- of peg-ins and receives thousands of peg-outs must not become their product).
-- A peg-out whose output later funds a peg-in is a multi-hop step, not reuse:
-- a_follow covers it.
-- Only peg-outs from {{new_from}} on get their row here (every one in a full
-- run): a row names a peg-in below its peg-out, so the published rows of older
-- peg-outs are final and a continuing run keeps them (analyze.ts).

-- The peg-outs given a row, and the peg-in inputs of their addresses: as
-- tables, whose exact sizes let DuckDB hash the few rows of a continuing run
-- instead of every peg-in (x10: 0.2 s of 0.25 s).
CREATE OR REPLACE TEMP TABLE w_reuse_pegouts AS
SELECT txid, vout, address, height - 1 AS before_height FROM w_pegouts WHERE address IS NOT NULL AND height >= {{new_from}};

CREATE OR REPLACE TEMP TABLE w_reuse_inputs AS
SELECT address, pegin_txid FROM pegin_inputs WHERE address IN (SELECT address FROM w_reuse_pegouts);

-- The ASOF join picks an arbitrary row among equal heights, and the analysis
-- must be deterministic (an incremental export equals a full one byte for
-- byte): it sees one peg-in per address and height, the greatest (txid,
-- vout).
CREATE OR REPLACE TEMP TABLE a_reuse AS
WITH funded AS (
  SELECT i.address, p.height, max({'txid': p.txid, 'vout': p.vout}) AS pegin
  FROM w_reuse_inputs i JOIN w_pegins p ON p.txid = i.pegin_txid
  GROUP BY i.address, p.height
)
SELECT o.address, f.pegin.txid AS pegin_txid, f.pegin.vout AS pegin_vout, o.txid AS pegout_txid, o.vout AS pegout_vout
FROM w_reuse_pegouts o
ASOF JOIN funded f ON o.address = f.address AND o.before_height >= f.height;
