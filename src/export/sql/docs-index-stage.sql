-- docs_index.pending: what this export recorded (x_docs), and the previous
-- release's documents that are gone (x_gone_docs, with no md5); the
-- attribution and peg digests that changed (x_attr_delta, x_pegs_delta).
-- Run after clearing every pending table.
INSERT INTO docs_index.pending
SELECT kind, q, prefix, h, stamp_height, stamp_time FROM x_docs
UNION ALL SELECT kind, q, prefix, NULL, NULL, NULL FROM x_gone_docs;
INSERT INTO docs_index.pending_attribution SELECT address, h FROM x_attr_delta;
INSERT INTO docs_index.pending_pegs SELECT side, txid, vout, digest FROM x_pegs_delta;
