-- peg-digests.sql and x_attr_changed for an analysis whose digest is the
-- documents index's (analysis-digest.sql), on a chain that only grew: no peg
-- is in question and no address changed, and the pegs the next export asks
-- about are among those the index holds digests for (its floor only rose),
-- so those digests stay as they are: none is computed, none is staged.
CREATE OR REPLACE TEMP VIEW x_maybe_pegs AS SELECT side, txid, vout FROM x_prev_pegs WHERE false;
CREATE OR REPLACE TEMP VIEW x_next_pegs AS SELECT side, txid, vout FROM docs_index.pegs;
CREATE OR REPLACE TEMP TABLE x_peg_digests (side VARCHAR, txid VARCHAR, vout INTEGER, digest UHUGEINT);
CREATE OR REPLACE TEMP TABLE x_attr_changed (address VARCHAR, h UHUGEINT);
