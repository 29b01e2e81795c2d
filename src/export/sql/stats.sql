-- a_stats rows (key, value as JSON text), in key order: the stats document.
SELECT key, value FROM a_stats ORDER BY key
