-- a_recommendations holds the finished `recommendations` object as JSON.
SELECT doc::VARCHAR AS doc FROM a_recommendations LIMIT 1
