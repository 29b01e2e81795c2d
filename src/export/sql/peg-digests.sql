-- What this release records for the next one to compare with (docs/methodology.md,
-- "Horizon"): the digests of the pegs in question and what documents
-- show of each address. dirty.sql compares them with the previous release's;
-- dirty-all.sql, for an export that renders everything, does not. Needs
-- attribution-now.sql and the documents index, and the macros dirty_floor()
-- (the dirty floor, -1 when everything is rendered) and next_floor().

-- The pegs in question once the chain grows above a height: those above it,
-- and every peg of an address one of them funds or pays (address reuse,
-- which scores count over all time, reaches back below it). Each peg comes
-- with its reach, the highest height that puts it in question (its own, or
-- its addresses' latest use), so one pass serves both floors: a peg is in
-- question above f when its reach is above f. A peg-in's inputs fund each of
-- its outputs: the few addresses pick their inputs first, not a join of
-- every input with its peg-ins. The peg's height comes along for its digest.
CREATE OR REPLACE TEMP TABLE x_pegs_in_question AS
WITH f AS (
  SELECT CASE WHEN dirty_floor() >= 0 THEN least(dirty_floor(), next_floor()) ELSE next_floor() END AS floor
), addresses AS (
  SELECT address, max(height) AS reach FROM (
    SELECT address, height FROM analysed_pegin_inputs WHERE height > (FROM f) AND address IS NOT NULL
    UNION ALL SELECT address, height FROM analysed_pegouts WHERE height > (FROM f) AND address IS NOT NULL
  ) GROUP BY address
), funding AS (
  SELECT i.pegin_txid, max(a.reach) AS reach FROM analysed_pegin_inputs i JOIN addresses a USING (address) GROUP BY i.pegin_txid
)
SELECT side, txid, vout, height, max(reach) AS reach FROM (
  SELECT 'pegin' AS side, txid, vout, height, height AS reach FROM analysed_pegins WHERE height > (FROM f)
  UNION ALL SELECT 'pegin', p.txid, p.vout, p.height, u.reach FROM analysed_pegins p JOIN funding u ON u.pegin_txid = p.txid
  UNION ALL SELECT 'pegout', txid, vout, height, height FROM analysed_pegouts WHERE height > (FROM f)
  UNION ALL SELECT 'pegout', o.txid, o.vout, o.height, a.reach FROM analysed_pegouts o JOIN addresses a USING (address)
) GROUP BY ALL;

-- This export's (none when it renders everything), and the next one's
-- unless the chain reorganises (their digests go into the documents index,
-- next_floor() is this height minus twice the horizon).
CREATE OR REPLACE TEMP VIEW x_maybe_pegs AS SELECT side, txid, vout FROM x_pegs_in_question WHERE dirty_floor() >= 0 AND reach > dirty_floor();
CREATE OR REPLACE TEMP VIEW x_next_pegs AS SELECT side, txid, vout FROM x_pegs_in_question WHERE reach > next_floor();

-- What a peg shows besides its transaction and attribution: its height, its
-- score and its links, every column, as one digest. Only for the pegs the
-- next export will ask about, and the others there is a previous digest to
-- compare with (two sets apart by their reach, so nothing is de-duplicated);
-- they drive the joins: a semi join after them joined every score, 1.6 s
-- instead of 1.0 at x10.
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
  SELECT side, txid, vout, height FROM x_pegs_in_question WHERE reach > next_floor()
  UNION ALL SELECT side, txid, vout, height FROM x_pegs_in_question SEMI JOIN x_prev_pegs USING (side, txid, vout)
    WHERE reach <= next_floor() AND dirty_floor() >= 0 AND reach > dirty_floor()
), pegin_links AS (
  SELECT pegin_txid AS txid, pegin_vout AS vout, bit_xor(hash(l)) AS links1, bit_xor(hash(l, 'link')) AS links2
  FROM a_links l SEMI JOIN pegs m ON m.side = 'pegin' AND m.txid = l.pegin_txid AND m.vout = l.pegin_vout
  GROUP BY pegin_txid, pegin_vout
), pegout_links AS (
  SELECT pegout_txid AS txid, pegout_vout AS vout, bit_xor(hash(l)) AS links1, bit_xor(hash(l, 'link')) AS links2
  FROM a_links l SEMI JOIN pegs m ON m.side = 'pegout' AND m.txid = l.pegout_txid AND m.vout = l.pegout_vout
  GROUP BY pegout_txid, pegout_vout
)
SELECT 'pegin' AS side, m.txid, m.vout, peg_digest(m.height, s, l.links1, l.links2) AS digest
FROM (SELECT txid, vout, height FROM pegs WHERE side = 'pegin') m
LEFT JOIN a_pegin_scores s USING (txid, vout) LEFT JOIN pegin_links l USING (txid, vout)
UNION ALL
SELECT 'pegout', m.txid, m.vout, peg_digest(m.height, s, l.links1, l.links2)
FROM (SELECT txid, vout, height FROM pegs WHERE side = 'pegout') m
LEFT JOIN a_pegout_scores s USING (txid, vout) LEFT JOIN pegout_links l USING (txid, vout);

-- Addresses new, gone or changed since the release the documents index
-- describes (the previous one when dirty.sql runs): what it shows of them is
-- not the digest the index kept. With the digest they have now (none when
-- gone), which the index keeps once the release is published.
CREATE OR REPLACE TEMP MACRO attribution_changed() AS TABLE
WITH now AS MATERIALIZED (FROM attribution_now())
SELECT address, h FROM now ANTI JOIN docs_index.attribution USING (address, h)
UNION ALL SELECT address, NULL FROM docs_index.attribution ANTI JOIN now USING (address);
