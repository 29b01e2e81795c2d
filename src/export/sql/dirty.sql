-- Which documents could have changed since the previous release (docs/methodology.md,
-- "Horizon"), computed before anything is rendered, for an export
-- that builds on it (dirty-all.sql otherwise). dirty_floor() is the dirty
-- floor: a peg above it may have changed (the previous release's height
-- minus twice the horizon, lower after a reorg; -1 renders everything), and
-- so may a peg below it whose address is reused above it. Such a peg has
-- changed when its digest (x_peg_digests) differs from the one the previous
-- release recorded or there is none (x_prev_pegs; empty after a reorg, so
-- every such peg counts as changed). Other pegs' figures are final, and
-- change only through what documents show of addresses: attribution and
-- clusters, compared with the previous release's (x_attr_changed: the
-- addresses whose digest differs from the documents index's). The sets
-- are supersets: a document rendered again with the same bytes keeps its
-- stamp and its file. Each set starts from the small one it derives from
-- and looks its rows up in the chain-sized ones (semi joins build on the
-- small side), rather than filtering a chain-sized table of keys. A peg-in's
-- inputs fund each of its outputs. Needs keys.sql, attribution-now.sql and
-- peg-digests.sql.

CREATE OR REPLACE TEMP TABLE x_changed_pegs AS
SELECT side, txid, vout FROM x_maybe_pegs
ANTI JOIN (FROM x_peg_digests JOIN x_prev_pegs USING (side, txid, vout, digest)) USING (side, txid, vout);

-- Addresses of changed pegs, and addresses whose attribution changed.
CREATE OR REPLACE TEMP TABLE x_touched AS
SELECT address FROM analysed_pegin_inputs SEMI JOIN x_changed_pegs c ON c.side = 'pegin' AND c.txid = pegin_txid
  WHERE address IS NOT NULL
UNION SELECT address FROM analysed_pegouts SEMI JOIN x_changed_pegs c ON c.side = 'pegout' AND c.txid = analysed_pegouts.txid AND c.vout = analysed_pegouts.vout
  WHERE address IS NOT NULL
UNION SELECT address FROM x_attr_changed;

-- Pegs whose node may have changed: changed; funded by an address whose
-- attribution changed (a node shows its inputs' attribution); linked to a
-- peg-out whose address changed attribution (a link names the peg-out's entity).
CREATE OR REPLACE TEMP TABLE x_dirty_pegins AS
SELECT txid, vout FROM x_changed_pegs WHERE side = 'pegin'
UNION SELECT txid, vout FROM analysed_pegins
  SEMI JOIN (SELECT pegin_txid FROM analysed_pegin_inputs SEMI JOIN x_attr_changed USING (address)) i ON i.pegin_txid = txid
UNION SELECT pegin_txid, pegin_vout FROM a_links SEMI JOIN x_attr_changed c ON c.address = pegout_address;

-- The same for peg-outs; a peg-out's risk also carries its linked peg-ins' funding entities.
CREATE OR REPLACE TEMP TABLE x_dirty_pegouts AS
SELECT txid, vout FROM x_changed_pegs WHERE side = 'pegout'
UNION SELECT txid, vout FROM analysed_pegouts SEMI JOIN x_attr_changed USING (address)
UNION SELECT l.pegout_txid, l.pegout_vout FROM a_links l SEMI JOIN x_dirty_pegins d ON d.txid = l.pegin_txid AND d.vout = l.pegin_vout;

-- Every address a dirty peg shows, and those whose attribution changed.
CREATE OR REPLACE TEMP TABLE x_dirty_addresses AS
SELECT address FROM x_touched
UNION SELECT address FROM analysed_pegin_inputs SEMI JOIN x_dirty_pegins d ON d.txid = pegin_txid WHERE address IS NOT NULL
UNION SELECT address FROM analysed_pegouts SEMI JOIN x_dirty_pegouts USING (txid, vout) WHERE address IS NOT NULL;

-- The documents to render, by kind (follow_chain goes with follow): a follow
-- chain is dirty when its start is, or when any hop passes a dirty peg or a
-- dirty address (a hop can be added, changed or lost only there).
CREATE OR REPLACE TEMP TABLE x_dirty_keys AS
WITH txids AS (
  SELECT txid FROM x_dirty_pegins UNION SELECT txid FROM x_dirty_pegouts
), follow AS (
  SELECT address FROM x_dirty_addresses
  UNION SELECT f.start_address FROM a_follow f
  WHERE f.to_address IN (SELECT address FROM x_dirty_addresses)
     OR (f.pegin_txid, f.pegin_vout) IN (SELECT (txid, vout) FROM x_dirty_pegins)
     OR (f.pegout_txid, f.pegout_vout) IN (SELECT (txid, vout) FROM x_dirty_pegouts)
), heights AS (
  SELECT height FROM analysed_pegins SEMI JOIN x_dirty_pegins USING (txid, vout)
  UNION SELECT height FROM analysed_pegouts SEMI JOIN x_dirty_pegouts USING (txid, vout)
), addresses AS (
  SELECT address FROM x_addresses SEMI JOIN x_dirty_addresses USING (address)
)
SELECT 'trace' AS kind, address AS q FROM addresses
UNION ALL SELECT DISTINCT 'trace', txid FROM analysed_pegins WHERE txid IN (SELECT txid FROM txids)
UNION ALL SELECT DISTINCT 'trace', txid FROM analysed_pegouts WHERE txid IN (SELECT txid FROM txids)
UNION ALL SELECT 'address', address FROM addresses
UNION ALL SELECT 'follow', address FROM x_addresses SEMI JOIN follow USING (address)
UNION ALL SELECT 'follow_chain', address FROM x_follow_chains SEMI JOIN follow USING (address)
UNION ALL SELECT 'block', height::VARCHAR FROM analysed_blocks
  WHERE pegin_count + pegout_count > 0 AND height IN (SELECT height FROM heights);

-- The pegs the documents to render show: every peg of a dirty transaction,
-- of a dirty address and of a dirty block.
CREATE OR REPLACE TEMP TABLE x_need_pegins AS
SELECT DISTINCT txid, vout FROM analysed_pegins
WHERE txid IN (SELECT q FROM x_dirty_keys WHERE kind = 'trace')
   OR height IN (SELECT q::INTEGER FROM x_dirty_keys WHERE kind = 'block')
   OR txid IN (SELECT pegin_txid FROM analysed_pegin_inputs SEMI JOIN x_dirty_addresses USING (address));

CREATE OR REPLACE TEMP TABLE x_need_pegouts AS
SELECT txid, vout FROM analysed_pegouts
WHERE txid IN (SELECT q FROM x_dirty_keys WHERE kind = 'trace')
   OR height IN (SELECT q::INTEGER FROM x_dirty_keys WHERE kind = 'block')
   OR address IN (SELECT address FROM x_dirty_addresses);

-- Which peg-ins each dirty address funds, for the address and trace
-- documents (every address they render is dirty; dirty-all.sql: every
-- address). The inputs are filtered in a subquery: as a semi join the planner
-- joined every input with its peg-ins first (0.25 s instead of 0.05 at x10).
CREATE OR REPLACE TEMP TABLE x_address_pegins AS
SELECT DISTINCT i.address, p.txid, p.vout
FROM (SELECT address, pegin_txid FROM analysed_pegin_inputs WHERE address IN (SELECT address FROM x_dirty_addresses)) i
JOIN analysed_pegins p ON p.txid = i.pegin_txid;
