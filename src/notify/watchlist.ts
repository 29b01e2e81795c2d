/**
 * The watchlist (`pegscope watch …`, docs/notifications.md): kept in the
 * operator's database, never exported. A watch's secret is shown once, when
 * it is added, and appears nowhere else.
 */
import { randomBytes } from 'node:crypto';
import { canonicalKey } from '@pegscope/client';
import { UsageError } from '../config.js';
import { isValidAddress } from '../domain/address.js';
import type { NetworkParams } from '../domain/network.js';
import type { Db } from '../store/db.js';
import { generateSecret, secretProblem } from './signature.js';
import { pinTarget, TargetRefused, urlProblem } from './target.js';
import { ATTRIBUTION_OF, DELETE_WATCH, HAS_ATTRIBUTION, INSERT_WATCH, LIST_WATCHES, SCANNED_TIP, WATCH_BY_ID, WATCHES_MATCHING } from './sql.js';
import type { WatchRef } from './event.js';

/** A link touching a watched address is reported at or above this confidence unless the watch says otherwise. */
export const DEFAULT_MIN_CONFIDENCE = 0.5;

export interface WatchInput {
  address: string;
  url: string;
  label?: string;
  minConfidence?: number;
  /** Report facts in blocks from this height on (default: the block after the scanned tip). */
  since?: number;
  /** An existing whsec_ secret (default: a new one). */
  secret?: string;
  allowPrivate: boolean;
}

export interface AddedWatch {
  id: string;
  secret: string;
  since: number;
}

export interface WatchSummary {
  id: string;
  address: string;
  url: string;
  label: string | null;
  min_confidence: number;
  since_height: number;
  created_at: bigint;
  pending: bigint;
  delivered: bigint;
  failed: bigint;
}

const newWatchId = (): string => `w_${randomBytes(6).toString('hex')}`;

/** Checks a watch's input; every problem is a usage error (the CLI's exit 2), none quotes the secret. */
async function checkInput(input: WatchInput, network: NetworkParams): Promise<void> {
  if (!isValidAddress(input.address, network)) throw new UsageError(`${input.address} is not a ${network.name} address`);
  const problem = urlProblem(input.url);
  if (problem) throw new UsageError(problem);
  const confidence = input.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
  if (!(confidence >= 0 && confidence <= 1)) throw new UsageError(`--min-confidence must be from 0 to 1, got ${confidence}`);
  if (input.secret !== undefined) {
    const bad = secretProblem(input.secret);
    if (bad) throw new UsageError(`--secret-file: ${bad}`);
  }
  try {
    await pinTarget(new URL(input.url), input.allowPrivate);
  } catch (err) {
    if (err instanceof TargetRefused) throw new UsageError(`the webhook is refused: ${err.message}`);
    throw err;
  }
}

/** What the analysis attributes the address to now ('null': nothing, or no analysis yet): a change from it is an event. */
async function attributionNow(db: Db, address: string): Promise<string> {
  const analysed = Number((await db.one<{ n: bigint }>(HAS_ATTRIBUTION))!.n) > 0;
  return analysed ? (await db.one<{ current: string }>(ATTRIBUTION_OF, [address]))!.current : 'null';
}

export async function addWatch(db: Db, network: NetworkParams, input: WatchInput, nowMs: number): Promise<AddedWatch> {
  await checkInput(input, network);
  const tip = Number((await db.one<{ value: string }>(SCANNED_TIP))?.value ?? -1);
  const since = input.since ?? tip + 1;
  const id = newWatchId();
  const secret = input.secret ?? generateSecret();
  // Upper-case bech32 is valid (BIP-173); the chain's addresses, which the watch is matched with, are lower-case.
  const address = canonicalKey(input.address);
  await db.exec(INSERT_WATCH, [id, address, input.url, secret, input.label ?? null, input.minConfidence ?? DEFAULT_MIN_CONFIDENCE, since,
    await attributionNow(db, address), nowMs]);
  // The secret and the URL go into the database file now, not into a write-ahead log that outlives this command's umask.
  await db.checkpoint();
  return { id, secret, since };
}

export const listWatches = (db: Db): Promise<WatchSummary[]> => db.all<WatchSummary>(LIST_WATCHES);

/** Removes the watch with this id, or every watch of this address, with its events and deliveries; returns the ids removed. */
export async function removeWatches(db: Db, addressOrId: string): Promise<string[]> {
  const ids = (await db.all<{ id: string }>(WATCHES_MATCHING, [canonicalKey(addressOrId)])).map((w) => w.id);
  await db.transaction(async () => {
    for (const id of ids) for (const sql of DELETE_WATCH) await db.exec(sql, [id]);
  });
  return ids;
}

/** A watch with its secret, for sending to it. */
export const findWatch = (db: Db, id: string): Promise<(WatchRef & { url: string; secret: string }) | undefined> => db.one(WATCH_BY_ID, [id]);
