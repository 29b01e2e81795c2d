-- Each watch's address as the analysis attributes it now (JSON, 'null' for no
-- attribution) beside what the watch last reported.
SELECT w.id, w.attribution AS previous,
  coalesce((SELECT to_json({entity: a.entity, category: a.category, via: a.via, confidence: a.confidence})
            FROM a_attribution a WHERE a.address = w.address LIMIT 1)::VARCHAR, 'null') AS current
FROM watches w
ORDER BY w.id
