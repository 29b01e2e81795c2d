-- docs_index.pending*: how the documents index changes to describe this
-- release. What this export recorded (x_docs), and the previous release's
-- documents that are gone (x_gone_docs, with no md5). The digests of the
-- addresses whose attribution changed (x_attr_changed), with none when gone.
-- The digests of the pegs the next export asks about (x_next_pegs) that are
-- new or changed, and the index's others, with none (the digest of the
-- analysis they come from is staged beside them: workspace.ts). Computed here, at the
-- end, so no chain-sized table is held while documents render.
-- Run after clearing every pending table.
INSERT INTO docs_index.pending
SELECT kind, q, prefix, h, stamp_height, stamp_time FROM x_docs
UNION ALL SELECT kind, q, prefix, NULL, NULL, NULL FROM x_gone_docs;
INSERT INTO docs_index.pending_attribution
SELECT address, h FROM x_attr_changed;
INSERT INTO docs_index.pending_pegs
SELECT side, txid, vout, digest FROM x_peg_digests SEMI JOIN x_next_pegs USING (side, txid, vout)
ANTI JOIN docs_index.pegs USING (side, txid, vout, digest)
UNION ALL SELECT side, txid, vout, NULL FROM docs_index.pegs ANTI JOIN x_next_pegs USING (side, txid, vout);
