-- x_unchanged: the previous release's documents of one kind ($1) whose body
-- this release has unchanged, and whose files that release lists, so the
-- writer can carry those files over instead of writing them: rendered again
-- (or, for a range file, digested again) with the same md5, or not recorded
-- by this export at all (x_docs) and not gone. Only keys from $2 on and below
-- $3 (null: no bound), the writer's scope (writer.ts KeyScope).
CREATE OR REPLACE TEMP TABLE x_unchanged AS
SELECT p.q FROM x_prev_docs p
LEFT JOIN (SELECT q, h FROM x_docs WHERE kind = $1) d ON d.q = p.q
SEMI JOIN (SELECT q FROM x_prev_files WHERE kind = $1) f ON f.q = p.q
ANTI JOIN (SELECT q FROM x_gone_docs WHERE kind = $1) g ON g.q = p.q
WHERE p.kind = $1 AND p.q >= $2 AND ($3 IS NULL OR p.q < $3) AND (d.q IS NULL OR d.h = p.h);
