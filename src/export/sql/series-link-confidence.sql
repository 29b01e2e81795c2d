-- Series `link_confidence` (api/series/link_confidence.json): the reported
-- links (a_links,, all at or below the analysed height)
-- counted in twenty confidence bins of width 0.05; bin i holds
-- [i/20, (i+1)/20), the last one also 1.0. Every bin is listed, empty or
-- not, so the histogram has a fixed x axis.
WITH bins AS (
  SELECT least(floor(confidence * 20), 19)::INTEGER AS i, count(*) AS n
  FROM a_links GROUP BY ALL
)
SELECT json_object(
  'name', 'link_confidence', 'bin_width', 0.05,
  'low', list(round(i / 20, 2) ORDER BY i),
  'count', list(coalesce(n, 0) ORDER BY i)
)::VARCHAR AS body
FROM range(20) r(i) LEFT JOIN bins USING (i);
