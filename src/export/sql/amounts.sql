-- The most common amounts of one side ('pegin' or 'pegout'), count desc then
-- amount asc, as one JSON list (NULL when empty). $1 = side, $2 = how many.
-- Needs macros.sql.
SELECT json_plain(to_json(list({'amount': coin_json(amount), 'count': count} ORDER BY count DESC, amount))::VARCHAR) AS rows
FROM (SELECT amount, count FROM a_amounts WHERE side = $1 ORDER BY count DESC, amount LIMIT $2);
