-- a_meta: what this analysis describes (as_of_height, updated_at, network) and
-- the horizon and tolerance it used (the export compares them across releases).
CREATE OR REPLACE TEMP TABLE a_meta AS
SELECT * FROM (VALUES
  ('as_of_height', '{{as_of_height}}'),
  ('updated_at', '{{now}}'),
  ('network', coalesce((SELECT value FROM meta WHERE key = 'network'), 'unknown')),
  ('horizon_blocks', '{{horizon_blocks}}'),
  ('tolerance', '{{tol}}')
) AS t(key, value);
