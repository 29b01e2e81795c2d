-- The counts of the health document: the scanner's cursor (liveness of the
-- scan, which may be ahead of the analysis) and the analysed peg-ins and peg-outs.
SELECT (SELECT value FROM meta WHERE key = 'cursor_height') AS cursor,
  (SELECT count(*) FROM analysed_pegins) AS pegins,
  (SELECT count(*) FROM analysed_pegouts) AS pegouts;
