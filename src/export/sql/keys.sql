-- The keys of every per-query document (docs/static-hosting.md), before anything is
-- rendered: x_addresses (funders of peg-ins and peg-out destinations),
-- x_address_pegins, and x_keys (kind, q) for trace, address, follow,
-- follow_chain (chains longer than the default depth) and block. Needs the
-- analysed_* views.
CREATE OR REPLACE TEMP TABLE x_addresses AS
SELECT address FROM analysed_pegin_inputs WHERE address IS NOT NULL
UNION
SELECT address FROM analysed_pegouts WHERE address IS NOT NULL;

CREATE OR REPLACE TEMP TABLE x_address_pegins AS
SELECT DISTINCT i.address, p.txid, p.vout
FROM analysed_pegin_inputs i JOIN analysed_pegins p ON p.txid = i.pegin_txid
WHERE i.address IS NOT NULL;

CREATE OR REPLACE TEMP TABLE x_keys AS
SELECT 'trace' AS kind, address AS q FROM x_addresses
UNION ALL SELECT 'trace', txid FROM (SELECT DISTINCT txid FROM analysed_pegins)
UNION ALL SELECT 'trace', txid FROM (SELECT DISTINCT txid FROM analysed_pegouts)
UNION ALL SELECT 'address', address FROM x_addresses
UNION ALL SELECT 'follow', address FROM x_addresses
UNION ALL SELECT 'follow_chain', start_address FROM a_follow GROUP BY start_address HAVING count(*) > {{follow_default_depth}}
UNION ALL SELECT 'block', height::VARCHAR FROM analysed_blocks WHERE pegin_count + pegout_count > 0;
