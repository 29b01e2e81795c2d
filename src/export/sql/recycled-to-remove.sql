-- Paths of one kind ($1) in the recycled release that get new bytes or go
-- away: every one of its files but those x_carry keeps in place. Only keys
-- from $2 on and below $3 (null: no bound), as docs-unchanged.sql.
SELECT r.path FROM x_recycled_files r
ANTI JOIN (SELECT path FROM x_carry WHERE kept) k ON k.path = r.path
WHERE r.kind = $1 AND r.q >= $2 AND ($3 IS NULL OR r.q < $3);
