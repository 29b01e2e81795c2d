-- Stored block hashes of a height range, for comparing with the node when looking for a reorg's fork point.
SELECT height, hash FROM blocks WHERE height BETWEEN $1 AND $2 ORDER BY height DESC;
