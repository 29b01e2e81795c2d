-- The digest of everything the peg and attribution digests are computed
-- from (peg-digests.sql, attribution-now.sql), as decimal text: the score
-- and link rows, what documents show of each address, and how many pegs and
-- inputs there are. The documents index keeps it with those digests; an
-- export on a chain that only grew whose digest equals the index's compares
-- no peg and no address (peg-digests-unchanged.sql): none can have changed,
-- and their digests are the index's. Each table's rows are hashed and
-- xor-ed (every row is unique, so none cancel out, and nothing is sorted).
-- Run on a connection of its own (workspace.ts): at x10 it reads 3 million
-- rows. Needs macros.sql, attribution.sql and the analysed_* views.
SELECT (digest128('analysis', row(
  (SELECT row(count(*), bit_xor(hash(s)), bit_xor(hash(s, 'row'))) FROM a_pegin_scores s),
  (SELECT row(count(*), bit_xor(hash(s)), bit_xor(hash(s, 'row'))) FROM a_pegout_scores s),
  (SELECT row(count(*), bit_xor(hash(l)), bit_xor(hash(l, 'row'))) FROM a_links l),
  (SELECT row(count(*), bit_xor(hash(a)), bit_xor(hash(a, 'row'))) FROM x_attribution a),
  (SELECT row(count(*), bit_xor(hash(c)), bit_xor(hash(c, 'row'))) FROM a_clusters c),
  (SELECT count(*) FROM analysed_pegins), (SELECT count(*) FROM analysed_pegouts), (SELECT count(*) FROM analysed_pegin_inputs)
)))::VARCHAR AS digest
