-- x_range_aliases += every block hash with a peg (x_block_keys, keys.sql),
-- in the range its sha256 names ($1 = the prefix length), mapping to its height.
INSERT INTO x_range_aliases SELECT left(sha256(hash), $1), hash, q FROM x_block_keys;
