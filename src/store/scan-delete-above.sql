-- Removes every base row above a height: a reorg's orphaned blocks, or anything above the cursor.
DELETE FROM blocks WHERE height > $1;
DELETE FROM pegins WHERE height > $1;
DELETE FROM pegin_inputs WHERE height > $1;
DELETE FROM pegouts WHERE height > $1;
