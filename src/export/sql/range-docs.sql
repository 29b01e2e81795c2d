-- x_range_docs += one kind's documents on their way into range files: the
-- range they go to (the first $3 hex digits of sha256 of the key), the key,
-- the part (0 the default document; 1 a follow chain longer than the default
-- depth), the body's md5 and the text in its envelope (wrap_document),
-- stamped with the analysis that last changed it (x_docs). $1 = the kind in
-- x_docs, $2 = part.
INSERT INTO x_range_docs
SELECT left(sha256(d.q), $3), d.q, $2, d.h, wrap_document(s.stamp_height, s.stamp_time, d.body), s.stamp_height, s.stamp_time
FROM x_doc d JOIN x_docs s ON s.kind = $1 AND s.q = d.q;
