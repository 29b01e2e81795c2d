-- x_docs += one kind's documents (x_doc: q, body, h = md5 of the body), each
-- stamped with the analysis that last changed its body: a body unchanged since
-- the previous release (x_prev_docs) keeps the stamp it had, any other gets
-- this analysis's. $1 = kind, $2 = as_of_height, $3 = updated_at.
INSERT INTO x_docs
SELECT $1, d.q, d.h,
  CASE WHEN p.h = d.h THEN p.stamp_height ELSE $2 END,
  CASE WHEN p.h = d.h THEN p.stamp_time ELSE $3 END
FROM x_doc d
LEFT JOIN x_prev_docs p ON p.kind = $1 AND p.q = d.q;
