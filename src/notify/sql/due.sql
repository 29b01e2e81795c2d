-- Deliveries due at $1 (unix ms), with what an attempt needs; each watch's
-- in the order its events were found.
SELECT o.event_id, o.watch_id, o.attempts, o.created_at, e.body, w.url, w.secret
FROM watch_outbox o
JOIN watch_events e ON e.id = o.event_id
JOIN watches w ON w.id = o.watch_id
WHERE o.status = 'pending' AND o.next_attempt_at <= $1
ORDER BY o.watch_id, o.seq
