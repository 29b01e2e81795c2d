/**
 * After a release is published, the job records what is new for each watch
 * (docs/notifications.md): events for facts not yet recorded, an
 * attribution change, and retractions of events a reorg took the block of.
 * Events and their deliveries are written in one transaction, so a crash
 * leaves either both or neither; the next run finds the same facts again under
 * the same ids.
 */
import type { Db } from '../store/db.js';
import type { NetworkName } from '../domain/network.js';
import { attributionData, eventBody, factData, factId, retractionData, type EventData, type Fact, type WatchRef } from './event.js';
import {
  AS_OF_HEIGHT, CANCEL_DELIVERY, EVENT_STATES, INSERT_DELIVERY, INSERT_EVENT, MARK_RETRACTED, NEXT_SEQ, notifySql, SET_ATTRIBUTION, WATCH_REFS,
} from './sql.js';

interface FactRow {
  type: Fact['type'];
  watch_id: string;
  txid: string;
  vout: number;
  height: number;
  amount: bigint;
  block_hash: string;
  pegin_txid: string | null;
  pegin_vout: number | null;
  pegin_height: number | null;
  pegin_amount: bigint | null;
  confidence: number | null;
}

/** One event to record: its data, and the block it stands on (null: none to retract it by). */
interface NewEvent {
  data: EventData;
  blockHash: string | null;
}

export interface RecordSummary {
  events: number;
  retracted: number;
  /** Events not yet attempted when their block went: dropped, never sent. */
  cancelled: number;
}

const factOf = (row: FactRow): Fact => ({
  watchId: row.watch_id, type: row.type, blockHash: row.block_hash,
  peg: { txid: row.txid, vout: row.vout, height: row.height, amount: Number(row.amount) },
  ...(row.pegin_txid !== null ? {
    pegin: { txid: row.pegin_txid, vout: row.pegin_vout!, height: row.pegin_height!, amount: Number(row.pegin_amount!) },
    confidence: row.confidence!,
  } : {}),
});

/**
 * The id a fact gets now: its own, unless a reorg retracted that one (then
 * the fact in this block is new), or null when it is already recorded.
 */
function newId(fact: Fact, states: Map<string, boolean>): string | null {
  const first = factId(fact);
  if (!states.has(first)) return first;
  if (!states.get(first)) return null;
  const again = factId(fact, fact.blockHash);
  return states.has(again) ? null : again;
}

/** Finds and records every new event of every watch, with its delivery due now. */
export async function recordEvents(db: Db, network: NetworkName, nowMs: number): Promise<RecordSummary> {
  return db.transaction(async () => {
    const watches = new Map((await db.all<WatchRef>(WATCH_REFS)).map((w) => [w.id, w]));
    if (watches.size === 0) return { events: 0, retracted: 0, cancelled: 0 };
    const states = new Map((await db.all<{ id: string; retracted: boolean }>(EVENT_STATES)).map((e) => [e.id, e.retracted]));
    const found: NewEvent[] = [];

    const { retracted, cancelled } = await retractOrphans(db, states, found);
    for (const row of await db.all<FactRow>(notifySql('facts'))) {
      const fact = factOf(row);
      const id = newId(fact, states);
      if (id === null) continue;
      states.set(id, false);
      found.push({ data: factData(id, fact, network, watches.get(fact.watchId)!), blockHash: fact.blockHash });
    }
    const height = Number((await db.one<{ value: string }>(AS_OF_HEIGHT))?.value ?? -1);
    for (const row of await db.all<{ id: string; previous: string | null; current: string }>(notifySql('attribution'))) {
      const previous = row.previous ?? 'null';
      if (previous === row.current) continue;
      await db.exec(SET_ATTRIBUTION, [row.id, row.current]);
      const data = attributionData(network, watches.get(row.id)!, height, JSON.parse(previous), JSON.parse(row.current));
      if (!states.has(data.id)) found.push({ data, blockHash: null });
    }

    let seq = Number((await db.one<{ seq: bigint }>(NEXT_SEQ))!.seq);
    for (const { data, blockHash } of found) {
      await db.exec(INSERT_EVENT, [data.id, data.watch_id, data.type, data.height ?? -1, blockHash, data.txid, data.vout, eventBody(data, nowMs), nowMs]);
      await db.exec(INSERT_DELIVERY, [data.id, data.watch_id, seq++, nowMs]);
    }
    return { events: found.length - retracted, retracted, cancelled };
  });
}

/**
 * Events whose block a reorg removed, marked retracted in `states` too. Their
 * pending deliveries stop. One never attempted is dropped (a receiver never
 * heard of it); one attempted (perhaps received) gets an event.retracted
 * naming it, added to `found`.
 */
async function retractOrphans(db: Db, states: Map<string, boolean>, found: NewEvent[]): Promise<{ retracted: number; cancelled: number }> {
  let retracted = 0;
  let cancelled = 0;
  for (const row of await db.all<{ id: string; body: string; status: string; attempts: number }>(notifySql('orphaned'))) {
    await db.exec(MARK_RETRACTED, [row.id]);
    states.set(row.id, true);
    if (row.status === 'pending') await db.exec(CANCEL_DELIVERY, [row.id]);
    if (row.status === 'pending' && row.attempts === 0) {
      cancelled++;
      continue;
    }
    const original = (JSON.parse(row.body) as { data: EventData }).data;
    found.push({ data: retractionData(original), blockHash: null });
    retracted++;
  }
  return { retracted, cancelled };
}
