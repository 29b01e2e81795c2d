-- x_fetch: the documents of one kind ($1) to write (those not carried over),
-- numbered for paging. A main file (has_file) too small for compressed
-- siblings ($2 = their minimum size in bytes) is rendered here in its
-- envelope (the wrap_document macro), with its size and sha256; the body is
-- kept only where JavaScript still needs it ($3: the kind uses its body).
CREATE OR REPLACE TEMP TABLE x_fetch AS
WITH w AS (
  SELECT d.* EXCLUDE (h), s.stamp_height, s.stamp_time,
    CASE WHEN d.has_file THEN wrap_document(s.stamp_height, s.stamp_time, d.body) END AS wrapped
  FROM x_rendered_docs d
  JOIN x_docs s ON s.kind = $1 AND s.q = d.q
  ANTI JOIN x_unchanged u ON u.q = d.q
),
r AS (SELECT *, coalesce(strlen(wrapped) < $2, false) AS rendered FROM w)
SELECT row_number() OVER (ORDER BY q) AS rn, r.* EXCLUDE (body, wrapped, rendered),
  CASE WHEN rendered AND NOT $3 THEN NULL ELSE body END AS body,
  CASE WHEN rendered THEN wrapped END AS file,
  CASE WHEN rendered THEN strlen(wrapped) END AS file_size,
  CASE WHEN rendered THEN sha256(wrapped) END AS file_sha256
FROM r;
