-- a_amounts: every distinct peg-in and peg-out amount of the horizon (docs/methodology.md:
-- heights as_of − {{horizon_blocks}} .. as_of, the blocks a peg-in at the tip counts in its
-- anonymity set) with its count: the privacy amount table.
CREATE OR REPLACE TEMP TABLE a_amounts AS
SELECT 'pegin' AS side, amount, count(*)::BIGINT AS count FROM w_pegins
WHERE height >= {{as_of_height}} - {{horizon_blocks}} GROUP BY amount
UNION ALL
SELECT 'pegout' AS side, amount, count(*)::BIGINT AS count FROM w_pegouts
WHERE height >= {{as_of_height}} - {{horizon_blocks}} GROUP BY amount
ORDER BY side, amount;
