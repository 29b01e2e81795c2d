-- What a continuing run scores and follows again below the new blocks
-- (docs/methodology.md "Continuing an analysis"): a score or a follow chain
-- changes only through a link, an attribution or, for a peg-in, a new peg-out
-- to one of its funding addresses. w_published_* are the published tables.

-- Links replaced (published, of peg-outs from {{relink_from}} on) or computed this run.
CREATE OR REPLACE TEMP TABLE w_links_changed AS
SELECT pegin_txid, pegin_vout, pegout_txid, pegout_vout FROM w_published_links WHERE pegout_height >= {{relink_from}}
UNION
SELECT pegin_txid, pegin_vout, pegout_txid, pegout_vout FROM w_new_links;

-- Addresses whose attribution differs from the published one (a labels
-- import, clusters merged); one row per address on either side.
CREATE OR REPLACE TEMP TABLE w_attribution_changed AS
SELECT address FROM (SELECT * FROM a_attribution EXCEPT SELECT * FROM w_published_attribution)
UNION
SELECT address FROM (SELECT * FROM w_published_attribution EXCEPT SELECT * FROM a_attribution);

-- Peg-ins (10_a_pegin_scores.sql) of a changed link (best link confidence),
-- funded from the address of a new peg-out (reuse) or from an address whose
-- attribution changed; with their published anonymity sets, which are final.
-- Each set is a table first: its exact size lets DuckDB hash it, not the
-- whole chain's peg-ins (x10: 0.3 s).
CREATE OR REPLACE TEMP TABLE w_rescored_funding AS
SELECT DISTINCT pegin_txid AS txid FROM pegin_inputs
WHERE address IN (SELECT address FROM w_pegouts WHERE height >= {{new_from}} UNION ALL SELECT address FROM w_attribution_changed);

CREATE OR REPLACE TEMP TABLE w_rescored_pegins AS
SELECT pegin_txid AS txid, pegin_vout AS vout FROM w_links_changed
UNION
SELECT txid, vout FROM w_pegins WHERE txid IN (SELECT txid FROM w_rescored_funding);

INSERT INTO w_pegin_rescored
SELECT c.txid, c.vout, p.height, s.anonymity_set
FROM w_rescored_pegins c JOIN w_pegins p USING (txid, vout) JOIN w_published_pegin_scores s USING (txid, vout)
WHERE p.height < {{new_from}};

-- Peg-outs (11_a_pegout_scores.sql) of a changed link (traceability, funding
-- risk), paying an address whose attribution changed, or linked to a peg-in
-- funded from one (funding risk).
INSERT INTO w_pegout_rescored
SELECT pegout_txid, pegout_vout FROM w_links_changed
UNION
SELECT txid, vout FROM w_pegouts WHERE address IN (SELECT address FROM w_attribution_changed)
UNION
SELECT pegout_txid, pegout_vout FROM a_links
WHERE pegin_txid IN (SELECT pegin_txid FROM pegin_inputs WHERE address IN (SELECT address FROM w_attribution_changed));

-- Follow steps (12_a_follow.sql): an address's step is its best link among
-- those of the peg-ins it funded, so only addresses funding a peg-in of a
-- changed link get a new one. A chain changes only where it meets such an
-- address (from or to): the published chains name those to follow again.
-- A step back to its own address is never followed, so the published
-- chains' first hops are every step kept.
INSERT INTO w_follow_restep
SELECT DISTINCT address FROM pegin_inputs
WHERE address IS NOT NULL AND pegin_txid IN (SELECT pegin_txid FROM w_links_changed);

INSERT INTO w_follow_restarted
SELECT address FROM w_follow_restep
UNION
SELECT start_address FROM w_published_follow
WHERE from_address IN (SELECT address FROM w_follow_restep) OR to_address IN (SELECT address FROM w_follow_restep);

CREATE OR REPLACE TEMP VIEW w_follow_kept AS
SELECT from_address, pegin_txid, pegin_vout, pegout_txid, pegout_vout, to_address, confidence
FROM w_published_follow
WHERE hop = 1 AND from_address NOT IN (SELECT address FROM w_follow_restep);
