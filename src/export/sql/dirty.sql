-- Which documents could have changed since the previous release (SPEC §2
-- Horizon, issue 15), computed before anything is rendered. dirty_floor() is the dirty
-- floor: a peg above it may have changed (the previous release's height
-- minus twice the horizon, lower after a reorg; -1 renders everything), and
-- so may a peg below it whose address is reused above it. Such a peg has
-- changed when its digest (x_peg_digests) differs from the one the previous
-- release recorded or there is none (x_prev_pegs; empty after a reorg, so
-- every such peg counts as changed). Other pegs' figures are final, and
-- change only through what documents show of addresses: attribution and
-- clusters, compared with the previous release's (x_prev_attr). The sets
-- are supersets: a document rendered again with the same bytes keeps its
-- stamp and its file. Needs keys.sql and attribution.sql.

-- The pegs in question once the chain grows above height f: those above it,
-- and every peg of an address one of them funds or pays (address reuse,
-- which scores count over all time, reaches back below f).
CREATE OR REPLACE TEMP MACRO pegs_in_question(f) AS TABLE
WITH addresses AS (
  SELECT address FROM analysed_pegin_inputs WHERE height > f AND address IS NOT NULL
  UNION SELECT address FROM analysed_pegouts WHERE height > f AND address IS NOT NULL
)
SELECT 'pegin' AS side, txid, vout FROM analysed_pegins WHERE height > f
UNION SELECT 'pegin', txid, vout FROM x_address_pegins SEMI JOIN addresses USING (address)
UNION SELECT 'pegout', txid, vout FROM analysed_pegouts WHERE height > f
UNION SELECT 'pegout', txid, vout FROM analysed_pegouts SEMI JOIN addresses USING (address);

-- This export's, and the next one's unless the chain reorganises (their
-- digests go into data/pegs.parquet, next_floor() is this height minus twice
-- the horizon).
CREATE OR REPLACE TEMP TABLE x_maybe_pegs AS FROM pegs_in_question(dirty_floor());
CREATE OR REPLACE TEMP TABLE x_next_pegs AS FROM pegs_in_question(next_floor());

-- What a peg shows besides its transaction and attribution: its height, its
-- score and its links, every column, as one md5. Only for the pegs there is
-- a previous digest to compare with, and those the next export will ask about.
-- A peg's links are combined as range-digests.sql combines documents: two
-- 64-bit hashes of each whole link row, xor-ed (a peg's links are unique, so
-- none cancel out, and no sort is needed; a string aggregate of the rows in
-- order took 1.4 s of 2.6 at x10). hash() may differ in another DuckDB
-- version: every peg then counts as changed once, which renders more, never less.
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
SELECT 'pegin' AS side, p.txid, p.vout, md5_number(concat_ws('|', p.height, s::VARCHAR, l.links1, l.links2)) AS digest
FROM analysed_pegins p LEFT JOIN a_pegin_scores s USING (txid, vout) LEFT JOIN pegin_links l USING (txid, vout)
SEMI JOIN pegs m ON m.side = 'pegin' AND m.txid = p.txid AND m.vout = p.vout
UNION ALL
SELECT 'pegout', o.txid, o.vout, md5_number(concat_ws('|', o.height, s::VARCHAR, l.links1, l.links2))
FROM analysed_pegouts o LEFT JOIN a_pegout_scores s USING (txid, vout) LEFT JOIN pegout_links l USING (txid, vout)
SEMI JOIN pegs m ON m.side = 'pegout' AND m.txid = o.txid AND m.vout = o.vout;

CREATE OR REPLACE TEMP TABLE x_changed_pegs AS
SELECT side, txid, vout FROM x_maybe_pegs
ANTI JOIN (FROM x_peg_digests JOIN x_prev_pegs USING (side, txid, vout, digest)) USING (side, txid, vout);

-- What documents show of each address: its attribution and its cluster.
CREATE OR REPLACE TEMP TABLE x_attr_now AS
SELECT coalesce(a.address, c.address) AS address, a.attribution::VARCHAR AS attribution, c.cluster_id, c.cluster_size
FROM x_attribution a
FULL JOIN (SELECT address, cluster_id, count(*) OVER (PARTITION BY cluster_id) AS cluster_size FROM a_clusters) c USING (address);

CREATE OR REPLACE TEMP TABLE x_attr_changed AS
WITH now AS (SELECT address, attribution, cluster_id, cluster_size FROM x_attr_now),
     before AS (SELECT address, attribution, cluster_id, cluster_size FROM x_prev_attr)
SELECT address FROM ((FROM now EXCEPT FROM before) UNION (FROM before EXCEPT FROM now));

-- Addresses of changed pegs, and addresses whose attribution changed.
CREATE OR REPLACE TEMP TABLE x_touched AS
SELECT address FROM x_address_pegins SEMI JOIN x_changed_pegs c ON c.side = 'pegin' AND c.txid = x_address_pegins.txid AND c.vout = x_address_pegins.vout
UNION SELECT address FROM analysed_pegouts SEMI JOIN x_changed_pegs c ON c.side = 'pegout' AND c.txid = analysed_pegouts.txid AND c.vout = analysed_pegouts.vout
  WHERE address IS NOT NULL
UNION SELECT address FROM x_attr_changed;

-- Pegs whose node may have changed: changed; funded by an address whose
-- attribution changed (a node shows its inputs' attribution); linked to a
-- peg-out whose address changed attribution (a link names the peg-out's entity).
CREATE OR REPLACE TEMP TABLE x_dirty_pegins AS
SELECT txid, vout FROM x_changed_pegs WHERE side = 'pegin'
UNION SELECT txid, vout FROM x_address_pegins SEMI JOIN x_attr_changed USING (address)
UNION SELECT pegin_txid, pegin_vout FROM a_links SEMI JOIN x_attr_changed c ON c.address = pegout_address;

-- The same for peg-outs; a peg-out's risk also carries its linked peg-ins' funding entities.
CREATE OR REPLACE TEMP TABLE x_dirty_pegouts AS
SELECT txid, vout FROM x_changed_pegs WHERE side = 'pegout'
UNION SELECT txid, vout FROM analysed_pegouts SEMI JOIN x_attr_changed USING (address)
UNION SELECT l.pegout_txid, l.pegout_vout FROM a_links l SEMI JOIN x_dirty_pegins d ON d.txid = l.pegin_txid AND d.vout = l.pegin_vout;

-- Every address a dirty peg shows, and those whose attribution changed.
CREATE OR REPLACE TEMP TABLE x_dirty_addresses AS
SELECT address FROM x_touched
UNION SELECT address FROM x_address_pegins SEMI JOIN x_dirty_pegins USING (txid, vout)
UNION SELECT address FROM analysed_pegouts SEMI JOIN x_dirty_pegouts USING (txid, vout) WHERE address IS NOT NULL;

-- The documents to render, by kind (follow_chain goes with follow): a follow
-- chain is dirty when its start is, or when any hop passes a dirty peg or a
-- dirty address (a hop can be added, changed or lost only there).
CREATE OR REPLACE TEMP TABLE x_dirty_keys AS
WITH txids AS (
  SELECT DISTINCT txid FROM x_dirty_pegins UNION SELECT DISTINCT txid FROM x_dirty_pegouts
), follow AS (
  SELECT address FROM x_dirty_addresses
  UNION SELECT f.start_address FROM a_follow f
  WHERE f.to_address IN (SELECT address FROM x_dirty_addresses)
     OR (f.pegin_txid, f.pegin_vout) IN (SELECT (txid, vout) FROM x_dirty_pegins)
     OR (f.pegout_txid, f.pegout_vout) IN (SELECT (txid, vout) FROM x_dirty_pegouts)
), heights AS (
  SELECT height FROM analysed_pegins SEMI JOIN x_dirty_pegins USING (txid, vout)
  UNION SELECT height FROM analysed_pegouts SEMI JOIN x_dirty_pegouts USING (txid, vout)
)
SELECT k.kind, k.q FROM x_keys k
WHERE (k.kind IN ('trace', 'address') AND k.q IN (SELECT address FROM x_dirty_addresses))
   OR (k.kind = 'trace' AND k.q IN (SELECT txid FROM txids))
   OR (k.kind IN ('follow', 'follow_chain') AND k.q IN (SELECT address FROM follow))
   OR (k.kind = 'block' AND k.q IN (SELECT height::VARCHAR FROM heights));

-- The pegs the documents to render show: every peg of a dirty transaction,
-- of a dirty address and of a dirty block.
CREATE OR REPLACE TEMP TABLE x_need_pegins AS
SELECT txid, vout FROM analysed_pegins
WHERE txid IN (SELECT q FROM x_dirty_keys WHERE kind = 'trace')
   OR height::VARCHAR IN (SELECT q FROM x_dirty_keys WHERE kind = 'block')
UNION SELECT txid, vout FROM x_address_pegins WHERE address IN (SELECT address FROM x_dirty_addresses);

CREATE OR REPLACE TEMP TABLE x_need_pegouts AS
SELECT txid, vout FROM analysed_pegouts
WHERE txid IN (SELECT q FROM x_dirty_keys WHERE kind = 'trace')
   OR height::VARCHAR IN (SELECT q FROM x_dirty_keys WHERE kind = 'block')
   OR address IN (SELECT address FROM x_dirty_addresses);
