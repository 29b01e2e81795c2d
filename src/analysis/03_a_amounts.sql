-- a_amounts: every distinct peg-in and peg-out amount with its count (the privacy amount table).
CREATE OR REPLACE TEMP TABLE a_amounts AS
SELECT 'pegin' AS side, amount, count(*)::BIGINT AS count FROM w_pegins GROUP BY amount
UNION ALL
SELECT 'pegout' AS side, amount, count(*)::BIGINT AS count FROM w_pegouts GROUP BY amount
ORDER BY side, amount;
