-- Events still standing whose block is no longer in the chain (a reorg
-- removed it), with their delivery: the job retracts or cancels them.
SELECT e.id, e.body, o.status, o.attempts
FROM watch_events e JOIN watch_outbox o ON o.event_id = e.id
WHERE NOT e.retracted AND e.block_hash IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.height = e.height AND b.hash = e.block_hash)
ORDER BY o.seq
