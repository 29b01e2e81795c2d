-- The keys of every per-query document (docs/static-hosting.md), before anything is
-- rendered: x_addresses (funders of peg-ins and peg-out destinations) and
-- the view x_keys (kind, q) for trace, address, follow, follow_chain
-- (chains longer than the default depth) and block. Which peg-ins an address
-- funds (x_address_pegins) is left to dirty.sql and dirty-all.sql: an export
-- that builds on the previous release needs it for its dirty addresses only.
-- Needs the analysed_* views.
CREATE OR REPLACE TEMP TABLE x_addresses AS
SELECT address FROM analysed_pegin_inputs WHERE address IS NOT NULL
UNION
SELECT address FROM analysed_pegouts WHERE address IS NOT NULL;

-- x_keys is a view: its few consumers (dirty-all.sql, docs-gone.sql after
-- a reorganised chain) each read it once, and materialising its 525k rows at
-- mainnet cost more than they do; dirty.sql and key-counts.sql read its
-- parts one by one. The two txid lists are kept apart as keys.sql always
-- had them, as views: key-counts.sql counts them, dirty.sql picks the
-- dirty ones from the pegs.
CREATE OR REPLACE TEMP VIEW x_pegin_txids AS SELECT DISTINCT txid FROM analysed_pegins;
CREATE OR REPLACE TEMP VIEW x_pegout_txids AS SELECT DISTINCT txid FROM analysed_pegouts;
CREATE OR REPLACE TEMP TABLE x_follow_chains AS
SELECT start_address AS address FROM a_follow GROUP BY start_address HAVING count(*) > {{follow_default_depth}};
-- Blocks with a peg, with their hash (range-aliases.sql maps each hash to
-- its block): a view, read whole only by range-aliases.sql and counted by
-- key-counts.sql; dirty.sql picks the dirty blocks from analysed_blocks.
CREATE OR REPLACE TEMP VIEW x_block_keys AS SELECT height::VARCHAR AS q, hash FROM analysed_blocks WHERE pegin_count + pegout_count > 0;

CREATE OR REPLACE TEMP VIEW x_keys AS
SELECT 'trace' AS kind, address AS q FROM x_addresses
UNION ALL SELECT 'trace', txid FROM x_pegin_txids
UNION ALL SELECT 'trace', txid FROM x_pegout_txids
UNION ALL SELECT 'address', address FROM x_addresses
UNION ALL SELECT 'follow', address FROM x_addresses
UNION ALL SELECT 'follow_chain', address FROM x_follow_chains
UNION ALL SELECT 'block', q FROM x_block_keys;
