-- What this release records for the next one to compare with (docs/methodology.md,
-- "Horizon"): the digests of the pegs in question and what documents
-- show of each address. dirty.sql compares them with the previous release's;
-- dirty-all.sql, for an export that renders everything, does not. Needs
-- attribution-now.sql and the documents index, and the macros dirty_floor()
-- (the dirty floor, -1 when everything is rendered) and next_floor().

-- The pegs in question once the chain grows above height f: those above it,
-- and every peg of an address one of them funds or pays (address reuse,
-- which scores count over all time, reaches back below f). A peg-in's inputs
-- fund each of its outputs: the few addresses pick their inputs first, not
-- a join of every input with its peg-ins.
CREATE OR REPLACE TEMP MACRO pegs_in_question(f) AS TABLE
WITH addresses AS (
  SELECT address FROM analysed_pegin_inputs WHERE height > f AND address IS NOT NULL
  UNION SELECT address FROM analysed_pegouts WHERE height > f AND address IS NOT NULL
)
SELECT 'pegin' AS side, txid, vout FROM analysed_pegins WHERE height > f
UNION SELECT 'pegin', txid, vout FROM analysed_pegins
  SEMI JOIN (SELECT pegin_txid FROM analysed_pegin_inputs SEMI JOIN addresses USING (address)) i ON i.pegin_txid = txid
UNION SELECT 'pegout', txid, vout FROM analysed_pegouts WHERE height > f
UNION SELECT 'pegout', txid, vout FROM analysed_pegouts SEMI JOIN addresses USING (address);

-- This export's (none when it renders everything), and the next one's
-- unless the chain reorganises (their digests go into the documents index,
-- next_floor() is this height minus twice the horizon).
CREATE OR REPLACE TEMP TABLE x_maybe_pegs AS FROM pegs_in_question(dirty_floor()) WHERE dirty_floor() >= 0;
CREATE OR REPLACE TEMP TABLE x_next_pegs AS FROM pegs_in_question(next_floor());

-- What a peg shows besides its transaction and attribution: its height, its
-- score and its links, every column, as one md5. Only for the pegs there is
-- a previous digest to compare with, and those the next export will ask about
-- (they drive the joins: a semi join after them joined every score, 1.6 s
-- instead of 1.0 at x10).
-- A peg's links are combined as range-digests.sql combines documents: two
-- 64-bit hashes of each whole link row, xor-ed (a peg's links are unique, so
-- none cancel out, and no sort is needed; a string aggregate of the rows in
-- order took 1.4 s of 2.6 at x10). hash() may differ in another DuckDB
-- version: every peg then counts as changed once, which renders more, never less.
-- The height, the score row and the links' hashes as one digest128
-- (macros.sql): casting each score row to text for an md5 took most of this step.
CREATE OR REPLACE TEMP MACRO peg_digest(height, score, links1, links2) AS digest128('peg', row(height, score, links1, links2));

CREATE OR REPLACE TEMP TABLE x_peg_digests AS
WITH pegs AS (
  SELECT side, txid, vout FROM x_maybe_pegs SEMI JOIN x_prev_pegs USING (side, txid, vout)
  UNION SELECT side, txid, vout FROM x_next_pegs
), pegin_links AS (
  SELECT pegin_txid AS txid, pegin_vout AS vout, bit_xor(hash(l)) AS links1, bit_xor(hash(l, 'link')) AS links2
  FROM a_links l SEMI JOIN pegs m ON m.side = 'pegin' AND m.txid = l.pegin_txid AND m.vout = l.pegin_vout
  GROUP BY pegin_txid, pegin_vout
), pegout_links AS (
  SELECT pegout_txid AS txid, pegout_vout AS vout, bit_xor(hash(l)) AS links1, bit_xor(hash(l, 'link')) AS links2
  FROM a_links l SEMI JOIN pegs m ON m.side = 'pegout' AND m.txid = l.pegout_txid AND m.vout = l.pegout_vout
  GROUP BY pegout_txid, pegout_vout
)
SELECT 'pegin' AS side, p.txid, p.vout, peg_digest(p.height, s, l.links1, l.links2) AS digest
FROM (SELECT txid, vout FROM pegs WHERE side = 'pegin') m JOIN analysed_pegins p USING (txid, vout)
LEFT JOIN a_pegin_scores s USING (txid, vout) LEFT JOIN pegin_links l USING (txid, vout)
UNION ALL
SELECT 'pegout', o.txid, o.vout, peg_digest(o.height, s, l.links1, l.links2)
FROM (SELECT txid, vout FROM pegs WHERE side = 'pegout') m JOIN analysed_pegouts o USING (txid, vout)
LEFT JOIN a_pegout_scores s USING (txid, vout) LEFT JOIN pegout_links l USING (txid, vout);

-- Addresses new, gone or changed since the release the documents index
-- describes (the previous one when dirty.sql runs): what it shows of them is
-- not the digest the index kept.
CREATE OR REPLACE TEMP MACRO attribution_changed() AS TABLE
SELECT address FROM x_attr_now ANTI JOIN docs_index.attribution USING (address, h)
UNION ALL SELECT address FROM docs_index.attribution ANTI JOIN x_attr_now USING (address);
