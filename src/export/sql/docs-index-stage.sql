-- docs_index.pending: what this export recorded (x_docs), and the previous
-- release's documents that are gone (x_gone_docs, with no md5).
DELETE FROM docs_index.pending;
INSERT INTO docs_index.pending
SELECT kind, q, prefix, h, stamp_height, stamp_time FROM x_docs
UNION ALL SELECT kind, q, prefix, NULL, NULL, NULL FROM x_gone_docs;
