-- Paths of one kind ($1) in the recycled release that get new bytes or go
-- away: every one of its files but those x_carry keeps in place.
SELECT r.path FROM x_recycled_files r
ANTI JOIN (SELECT path FROM x_carry WHERE kept) k ON k.path = r.path
WHERE r.kind = $1;
