/** The notifier's SQL: src/notify/sql/<name>.sql (copied next to the compiled modules by the build), and short statements by name. */
import { readSql } from '../store/db.js';

const loaded = new Map<string, string>();
export function notifySql(name: 'facts' | 'attribution' | 'orphaned' | 'due'): string {
  let sql = loaded.get(name);
  if (sql === undefined) loaded.set(name, sql = readSql(import.meta.url, `sql/${name}.sql`));
  return sql;
}

export const INSERT_WATCH = `INSERT INTO watches (id, address, url, secret, label, min_confidence, since_height, attribution, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`;
/** The watches with their deliveries counted by status; never the secret. */
export const LIST_WATCHES = `SELECT w.id, w.address, w.url, w.label, w.min_confidence, w.since_height, w.created_at,
    count(o.event_id) FILTER (WHERE o.status = 'pending') AS pending,
    count(o.event_id) FILTER (WHERE o.status = 'delivered') AS delivered,
    count(o.event_id) FILTER (WHERE o.status = 'failed') AS failed
  FROM watches w LEFT JOIN watch_outbox o ON o.watch_id = w.id
  GROUP BY ALL ORDER BY w.created_at, w.id`;
export const WATCH_BY_ID = 'SELECT id, address, url, secret, label FROM watches WHERE id = $1';
export const WATCHES_MATCHING = 'SELECT id FROM watches WHERE id = $1 OR address = $1';
/** A watch and everything found for it, one statement each (a parameter binds one statement). */
export const DELETE_WATCH = ['DELETE FROM watch_outbox WHERE watch_id = $1', 'DELETE FROM watch_events WHERE watch_id = $1', 'DELETE FROM watches WHERE id = $1'] as const;
/** The analysis's attribution of one address, as attribution.sql gives it (a_attribution exists once `analyze` ran). */
export const ATTRIBUTION_OF = `SELECT coalesce((SELECT to_json({entity: a.entity, category: a.category, via: a.via, confidence: a.confidence})
  FROM a_attribution a WHERE a.address = $1 LIMIT 1)::VARCHAR, 'null') AS current`;
export const HAS_ATTRIBUTION = "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'a_attribution' AND schema_name = 'main' AND NOT temporary";
export const SCANNED_TIP = "SELECT value FROM meta WHERE key = 'cursor_height'";
export const AS_OF_HEIGHT = "SELECT value FROM a_meta WHERE key = 'as_of_height'";

export const EVENT_STATES = 'SELECT id, retracted FROM watch_events';
export const INSERT_EVENT = 'INSERT INTO watch_events (id, watch_id, type, height, block_hash, txid, vout, body, retracted, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, false, $9)';
export const INSERT_DELIVERY = "INSERT INTO watch_outbox (event_id, watch_id, seq, status, attempts, next_attempt_at, created_at) VALUES ($1, $2, $3, 'pending', 0, $4, $4)";
export const NEXT_SEQ = 'SELECT coalesce(max(seq), 0) + 1 AS seq FROM watch_outbox';
export const MARK_RETRACTED = 'UPDATE watch_events SET retracted = true WHERE id = $1';
export const CANCEL_DELIVERY = "UPDATE watch_outbox SET status = 'cancelled' WHERE event_id = $1";
export const SET_ATTRIBUTION = 'UPDATE watches SET attribution = $2 WHERE id = $1';
export const WATCH_REFS = 'SELECT id, address, label FROM watches';

export const MARK_DELIVERED = "UPDATE watch_outbox SET status = 'delivered', attempts = attempts + 1, last_attempt_at = $2, last_error = NULL WHERE event_id = $1";
export const MARK_RETRY = "UPDATE watch_outbox SET attempts = attempts + 1, last_attempt_at = $2, next_attempt_at = $3, last_error = $4 WHERE event_id = $1";
export const MARK_FAILED = "UPDATE watch_outbox SET status = 'failed', attempts = attempts + 1, last_attempt_at = $2, last_error = $3 WHERE event_id = $1";
export const NEXT_DUE = "SELECT min(next_attempt_at) AS at FROM watch_outbox WHERE status = 'pending'";
