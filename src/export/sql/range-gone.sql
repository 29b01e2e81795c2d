-- x_gone_docs += the previous release's range files of one kind ($1, the
-- pseudo-kind range:<kind>) cut at another prefix length than this
-- release's ($2): every key of that kind now goes to a range of $2 digits.
INSERT INTO x_gone_docs SELECT kind, q, NULL FROM x_prev_docs WHERE kind = $1 AND length(q) <> $2;
