-- Working inputs of this run: the peg-ins and peg-outs at or below the cursor
-- (views, not copies), and the horizon (first MWEB height) of the timing model.
CREATE OR REPLACE TEMP VIEW w_pegins AS
SELECT * FROM pegins WHERE height <= {{as_of_height}};

CREATE OR REPLACE TEMP VIEW w_pegouts AS
SELECT * FROM pegouts WHERE height <= {{as_of_height}};

CREATE OR REPLACE TEMP TABLE w_horizon AS
SELECT coalesce(least((SELECT min(height) FROM w_pegins), (SELECT min(height) FROM w_pegouts)), 0) AS first_height;
