-- x_unchanged: the documents of one kind ($1) whose body is the same as in the
-- previous release (rendered again or not rendered at all) and whose files
-- that release lists, so the writer can carry those files over instead of
-- writing them. Only keys from $2 on and below $3 (null: no bound), the
-- writer's scope (writer.ts KeyScope).
CREATE OR REPLACE TEMP TABLE x_unchanged AS
SELECT d.q FROM x_docs d
SEMI JOIN x_prev_docs p ON p.kind = $1 AND p.q = d.q AND p.h = d.h
SEMI JOIN (SELECT q FROM x_prev_files WHERE kind = $1) f ON f.q = d.q
WHERE d.kind = $1 AND d.q >= $2 AND ($3 IS NULL OR d.q < $3);
