-- x_range_rendered += the documents of one kind rendered in this batch (x_rendered_docs)
-- on their way into range files: the range they go to (x_range_keys: the
-- first hex digits of sha256 of the key), the key, the part (0 the default document;
-- 1 a follow chain longer than the default depth), the body's md5 and stamp
-- (x_docs) and the text in its envelope (wrap_document). $1 = the kind in
-- x_docs, $2 = part. The documents not rendered: range-docs-kept.sql.
INSERT INTO x_range_rendered
SELECT k.prefix, s.q, $2, s.h, wrap_document(s.stamp_height, s.stamp_time, d.body), s.stamp_height, s.stamp_time
FROM x_rendered_docs d JOIN x_docs s ON s.kind = $1 AND s.q = d.q JOIN x_range_keys k ON k.kind = $1 AND k.q = d.q;
