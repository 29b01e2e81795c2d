-- x_range_docs += one kind's documents as they go into range files: the key
-- (q), the part (0 the default document; 1 a follow chain longer than the
-- default depth) and the text in its envelope (wrap_document), stamped with
-- the analysis that last changed it (x_docs). $1 = the kind in x_docs, $2 = part.
INSERT INTO x_range_docs
SELECT d.q, $2, wrap_document(s.stamp_height, s.stamp_time, d.body), s.stamp_height, s.stamp_time
FROM x_doc d JOIN x_docs s ON s.kind = $1 AND s.q = d.q;
