/**
 * The events a watch reports (docs/notifications.md) and their JSON: pure
 * shaping, no database. An event's id is derived from the fact it reports, so
 * finding the same fact again (a rerun, a crash before the outbox was
 * written) gives the same id and receivers can deduplicate by it.
 */
import { createHash } from 'node:crypto';
import { formatCoin } from '../domain/amount.js';
import type { NetworkName } from '../domain/network.js';

export const EVENT_TYPES = ['pegin.funded', 'pegout.received', 'link.found', 'attribution.changed', 'event.retracted'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** What `watch test` sends: never recorded, never retried. */
export const TEST_EVENT_TYPE = 'watch.test';

/** A peg a fact is about: its outpoint, block and amount in litoshi. */
export interface PegRef {
  txid: string;
  vout: number;
  height: number;
  amount: number;
}

/** What the job found for a watch, before it becomes an event. */
export interface Fact {
  watchId: string;
  type: 'pegin.funded' | 'pegout.received' | 'link.found';
  /** The peg the event names: the peg-in funded, the peg-out received, the peg-out of a link. */
  peg: PegRef;
  blockHash: string;
  /** link.found: the peg-in linked to `peg`, and the link's confidence. */
  pegin?: PegRef;
  confidence?: number;
}

/** The watch as events show it. */
export interface WatchRef {
  id: string;
  address: string;
  label: string | null;
}

/** An event's `data` member: what a receiver reads. */
export interface EventData {
  id: string;
  type: EventType | typeof TEST_EVENT_TYPE;
  network: NetworkName;
  watch_id: string;
  address: string;
  label: string | null;
  height: number | null;
  block_hash: string | null;
  txid: string | null;
  vout: number | null;
  /** Coins as an exact decimal string, and the same in litoshi. */
  amount: string | null;
  amount_litoshi: number | null;
  confidence: number | null;
  link?: { pegin_txid: string; pegin_vout: number; pegin_height: number; pegin_amount: string; pegin_amount_litoshi: number };
  attribution?: { previous: unknown; current: unknown };
  retracts?: { id: string; type: string };
}

/** The body POSTed: the Standard Webhooks envelope (type, timestamp, data). */
export interface EventBody {
  type: EventData['type'];
  timestamp: string;
  data: EventData;
}

const ID_PREFIX = 'evt_';
const ID_HEX = 32;

/** A deterministic id from the parts that name a fact. */
export function eventId(parts: readonly (string | number)[]): string {
  return ID_PREFIX + createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, ID_HEX);
}

/**
 * A fact's id: (watch, type, txid, vout), and for a link the peg-in it links
 * to (a peg-out can be linked to more than one). `again` is the block hash
 * when a reorg retracted the fact's first id and a later block holds it anew:
 * the fact in that block is a new event.
 */
export function factId(fact: Fact, again?: string): string {
  const parts: (string | number)[] = [fact.watchId, fact.type, fact.peg.txid, fact.peg.vout];
  if (fact.pegin) parts.push(fact.pegin.txid, fact.pegin.vout);
  if (again !== undefined) parts.push(again);
  return eventId(parts);
}

const amountFields = (litoshi: number | null): Pick<EventData, 'amount' | 'amount_litoshi'> =>
  ({ amount: litoshi === null ? null : formatCoin(litoshi), amount_litoshi: litoshi });

const base = (id: string, type: EventData['type'], network: NetworkName, watch: WatchRef): Omit<EventData, 'height' | 'block_hash' | 'txid' | 'vout' | 'amount' | 'amount_litoshi' | 'confidence'> =>
  ({ id, type, network, watch_id: watch.id, address: watch.address, label: watch.label });

export function factData(id: string, fact: Fact, network: NetworkName, watch: WatchRef): EventData {
  const { peg, pegin } = fact;
  return {
    ...base(id, fact.type, network, watch),
    height: peg.height, block_hash: fact.blockHash, txid: peg.txid, vout: peg.vout, ...amountFields(peg.amount),
    confidence: fact.confidence ?? null,
    ...(pegin ? { link: { pegin_txid: pegin.txid, pegin_vout: pegin.vout, pegin_height: pegin.height, pegin_amount: formatCoin(pegin.amount), pegin_amount_litoshi: pegin.amount } } : {}),
  };
}

/** attribution.changed at the analysis of `height`: its id names the watch, the height and what the address shows now. */
export function attributionData(network: NetworkName, watch: WatchRef, height: number, previous: unknown, current: unknown): EventData {
  const id = eventId([watch.id, 'attribution.changed', height, JSON.stringify(current)]);
  return {
    ...base(id, 'attribution.changed', network, watch),
    height, block_hash: null, txid: null, vout: null, ...amountFields(null), confidence: null,
    attribution: { previous, current },
  };
}

/** event.retracted for an event whose block a reorg removed: the retracted event's fields, and its id under `retracts`. */
export function retractionData(retracted: EventData): EventData {
  const { link: _link, attribution: _attribution, retracts: _retracts, ...fields } = retracted;
  return { ...fields, id: eventId([retracted.watch_id, 'event.retracted', retracted.id]), type: 'event.retracted', retracts: { id: retracted.id, type: retracted.type } };
}

/** A test event for `watch test`: a fresh id each time, so a receiver's deduplication never hides it. */
export function testData(network: NetworkName, watch: WatchRef, nonce: string): EventData {
  return { ...base(eventId([watch.id, TEST_EVENT_TYPE, nonce]), TEST_EVENT_TYPE, network, watch), height: null, block_hash: null, txid: null, vout: null, ...amountFields(null), confidence: null };
}

export function eventBody(data: EventData, atMs: number): string {
  const body: EventBody = { type: data.type, timestamp: new Date(atMs).toISOString(), data };
  return JSON.stringify(body);
}
