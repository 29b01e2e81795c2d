-- Working inputs of this run: the peg-ins and peg-outs at or below the cursor,
-- and the horizon (first MWEB height) the timing model needs.
CREATE OR REPLACE TEMP TABLE w_pegins AS
SELECT * FROM pegins WHERE height <= {{as_of_height}};

CREATE OR REPLACE TEMP TABLE w_pegouts AS
SELECT * FROM pegouts WHERE height <= {{as_of_height}};

CREATE OR REPLACE TEMP TABLE w_horizon AS
SELECT coalesce(least((SELECT min(height) FROM w_pegins), (SELECT min(height) FROM w_pegouts)), 0) AS first_height;
