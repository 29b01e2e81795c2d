-- What a release is made from in the database, as one line of text: the
-- analysis's facts but its time (a_meta: height, tip hash, network, horizon,
-- tolerance, model digest) and every label the analysis used (a_labels: each
-- row hashed and xor-ed, with their count). Two equal lines describe the same
-- chain, labels and analysis; export.ts sourceDigest adds the exporter's own
-- inputs. Nothing is sorted: xor-ed row hashes do not depend on the order.
SELECT (SELECT string_agg(key || '=' || coalesce(value, ''), ';' ORDER BY key) FROM a_meta WHERE key <> 'updated_at')
  || ';labels=' || (SELECT count(*) || ':' || coalesce(bit_xor(hash(l)), 0) || ':' || coalesce(bit_xor(hash(l, 'row')), 0) FROM a_labels l) AS source
