-- a_meta: what this analysis describes (as_of_height, updated_at, network) and
-- the horizon and tolerance it used (the export compares them across releases);
-- the tip's hash and the model's digest tell the next run whether it can
-- continue this analysis (analyze.ts).
CREATE OR REPLACE TEMP TABLE a_meta AS
SELECT * FROM (VALUES
  ('as_of_height', '{{as_of_height}}'),
  ('updated_at', '{{now}}'),
  ('network', coalesce((SELECT value FROM meta WHERE key = 'network'), 'unknown')),
  ('horizon_blocks', '{{horizon_blocks}}'),
  ('tolerance', '{{tol}}'),
  ('tip_hash', (SELECT hash FROM blocks WHERE height = {{as_of_height}})),
  ('model_digest', '{{model_digest}}')
) AS t(key, value);
