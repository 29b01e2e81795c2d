-- The staged release's documents into the index: its rows but those staged
-- (every row when the staged export recorded every document), then the
-- staged ones that are not gone; the index then names that release.
DELETE FROM docs_index.docs
WHERE (SELECT replaces FROM docs_index.pending_release) OR (kind, q) IN (SELECT kind, q FROM docs_index.pending);
INSERT INTO docs_index.docs SELECT kind, q, prefix, h, stamp_height, stamp_time FROM docs_index.pending WHERE h IS NOT NULL;
DELETE FROM docs_index.attribution WHERE address IN (SELECT address FROM docs_index.pending_attribution);
INSERT INTO docs_index.attribution SELECT address, h FROM docs_index.pending_attribution WHERE h IS NOT NULL;
DELETE FROM docs_index.pegs WHERE (side, txid, vout) IN (SELECT (side, txid, vout) FROM docs_index.pending_pegs);
INSERT INTO docs_index.pegs SELECT side, txid, vout, digest FROM docs_index.pending_pegs WHERE digest IS NOT NULL;
DELETE FROM docs_index.analysis;
INSERT INTO docs_index.analysis SELECT digest FROM docs_index.pending_analysis;
DELETE FROM docs_index.release;
INSERT INTO docs_index.release SELECT id FROM docs_index.pending_release;
DELETE FROM docs_index.pending;
DELETE FROM docs_index.pending_attribution;
DELETE FROM docs_index.pending_pegs;
DELETE FROM docs_index.pending_analysis;
DELETE FROM docs_index.pending_release;
