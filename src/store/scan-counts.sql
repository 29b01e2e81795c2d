-- What one scan run stored: blocks, peg-ins and peg-outs from height $1 up, and the highest block.
SELECT
  (SELECT count(*) FROM blocks WHERE height >= $1) AS blocks,
  (SELECT count(*) FROM pegins WHERE height >= $1) AS pegins,
  (SELECT count(*) FROM pegouts WHERE height >= $1) AS pegouts,
  (SELECT max(height) FROM blocks WHERE height >= $1) AS top;
