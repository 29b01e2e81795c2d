-- data/pegs.parquet: the digests (dirty.sql) the next export compares,
-- those of the pegs its floor leaves in question unless the chain
-- reorganises: above $1 (this height minus twice the horizon), and the pegs
-- of the addresses those fund or pay. Chosen from the chain alone, so an
-- incremental and a full export write the same file.
WITH addresses AS (
  SELECT address FROM analysed_pegin_inputs WHERE height > $1 AND address IS NOT NULL
  UNION SELECT address FROM analysed_pegouts WHERE height > $1 AND address IS NOT NULL
), pegs AS (
  SELECT 'pegin' AS side, txid, vout FROM x_address_pegins SEMI JOIN addresses USING (address)
  UNION SELECT 'pegout', txid, vout FROM analysed_pegouts SEMI JOIN addresses USING (address)
)
SELECT side, txid, vout, digest FROM x_peg_digests d
WHERE d.height > $1 OR (side, txid, vout) IN (SELECT (side, txid, vout) FROM pegs)
ORDER BY side, txid, vout
