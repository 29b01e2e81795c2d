-- x_gone_docs: the previous release's documents whose key this release no
-- longer has (x_keys), with their key prefix. While the chain only grows
-- ($1), pegs, blocks and addresses stay, and only a follow chain can drop
-- below the default depth (compared with x_follow_chains alone); otherwise
-- (a reorganised chain, every document rendered) every kind of keys.sql is
-- compared. Range files of a prefix length no longer used join them kind by
-- kind (range-gone.sql), and the digests of dump partitions not compared
-- again once the dumps are written (workspace.ts recordDumpDigests).
CREATE OR REPLACE TEMP TABLE x_gone_docs AS
SELECT p.kind, p.q, p.prefix FROM x_prev_docs p
ANTI JOIN x_keys k ON k.kind = p.kind AND k.q = p.q
WHERE p.kind IN ('trace', 'address', 'follow', 'follow_chain', 'block') AND NOT $1
UNION ALL
SELECT p.kind, p.q, p.prefix FROM x_prev_docs p
ANTI JOIN x_follow_chains c ON c.address = p.q
WHERE p.kind = 'follow_chain' AND $1;
