-- Documents recorded in x_docs and keys in x_keys of one kind ($1): equal once every document is recorded.
SELECT (SELECT count(*) FROM x_docs WHERE kind = $1) AS docs, (SELECT count(*) FROM x_keys WHERE kind = $1) AS keys
