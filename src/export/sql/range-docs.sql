-- x_range_docs += one kind's documents on their way into range files: the
-- range they go to (the first $3 hex digits of sha256 of the key), the key,
-- the part (0 the default document; 1 a follow chain longer than the default
-- depth), the body's md5 and stamp (x_docs) and, for the documents rendered
-- this time (x_doc), the text in its envelope (wrap_document); the others'
-- text comes from the previous release's range file. $1 = the kind in
-- x_docs, $2 = part.
INSERT INTO x_range_docs
SELECT left(sha256(s.q), $3), s.q, $2, s.h,
  CASE WHEN d.q IS NOT NULL THEN wrap_document(s.stamp_height, s.stamp_time, d.body) END,
  s.stamp_height, s.stamp_time
FROM x_docs s LEFT JOIN x_doc d ON d.q = s.q
WHERE s.kind = $1;
