/**
 * Delivery from the outbox (docs/notifications.md): each due event is POSTed,
 * signed, to its watch's webhook; a 2xx marks it delivered, anything else
 * schedules another attempt under the same id with exponential backoff and
 * jitter, until the retry window (24 h from when the event was found) runs
 * out and it is marked failed. Each attempt's outcome is stored as soon as it
 * is known, so a kill loses at most the knowledge of attempts under way: they
 * are made again (at least once; receivers deduplicate by id).
 */
import pLimit from 'p-limit';
import type { Db } from '../store/db.js';
import { DEFAULT_POST_LIMITS, postWebhook, type PostLimits, type PostOutcome } from './post.js';
import { eventBody, type EventData } from './event.js';
import { signedHeaders } from './signature.js';
import { pinTarget, TargetRefused } from './target.js';
import { MARK_DELIVERED, MARK_FAILED, MARK_RETRY, NEXT_DUE, notifySql } from './sql.js';

export interface RetryPolicy {
  /** Wait before attempt `attempt + 1`, after `attempt` failed ones (1, 2, …); `random` in [0, 1) for the jitter. */
  delayMs: (attempt: number, random: number) => number;
  /** No attempt later than this after the event was found. */
  windowMs: number;
}

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const FIRST_RETRY_MS = 30 * SECOND;
const MAX_RETRY_MS = 4 * HOUR;
/** The wait is scaled by a factor in [1 - JITTER, 1 + JITTER], so receivers that failed together are not retried together. */
const JITTER = 0.25;

/** 30 s, 1 min, 2 min, … doubling up to 4 h, each ±25 %, for 24 h: about 14 attempts. */
export const DEFAULT_RETRY: RetryPolicy = {
  delayMs: (attempt, random) => Math.round(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 1)) * (1 - JITTER + 2 * JITTER * random)),
  windowMs: 24 * HOUR,
};

/**
 * How long one pass (a job run, `watch deliver`) keeps starting attempts
 * (each has its own timeout besides): what is not attempted by then waits for
 * the next pass.
 */
export const DELIVERY_BUDGET_MS = 60_000;

/** Attempts under way at once, across watches; one watch's events go one at a time, in the order they were found. */
export const DEFAULT_CONCURRENCY = 4;

export interface DeliveryOptions {
  allowPrivate: boolean;
  log: (line: string) => void;
  now?: () => number;
  random?: () => number;
  retry?: RetryPolicy;
  limits?: PostLimits;
  concurrency?: number;
  /** No attempt starts after this time (unix ms); the ones under way finish within their timeout. */
  deadline?: number;
  /** How an attempt's host is resolved (tests); default DNS. */
  resolve?: Parameters<typeof pinTarget>[2];
}

export interface DeliverySummary {
  delivered: number;
  retrying: number;
  failed: number;
  /** Due but not attempted: the deadline came first. */
  deferred: number;
}

interface DueRow {
  event_id: string;
  watch_id: string;
  attempts: number;
  created_at: bigint;
  body: string;
  url: string;
  secret: string;
}

type Outcome = 'delivered' | 'retrying' | 'failed';

/** One attempt at one event; never throws for the receiver's sake. */
async function attempt(row: DueRow, opts: DeliveryOptions, now: number): Promise<PostOutcome> {
  try {
    const target = await pinTarget(new URL(row.url), opts.allowPrivate, opts.resolve);
    return await postWebhook(target, { ...signedHeaders(row.secret, row.event_id, now / SECOND, row.body), 'user-agent': 'pegscope-webhooks' }, row.body, opts.limits ?? DEFAULT_POST_LIMITS);
  } catch (err) {
    if (err instanceof TargetRefused) return { ok: false, error: err.message };
    throw err;
  }
}

/** Stores an attempt's outcome: delivered, another attempt later, or failed once the window has no room for one. */
async function settle(db: Db, row: DueRow, result: PostOutcome, opts: DeliveryOptions, at: number): Promise<Outcome> {
  if (result.ok) {
    await db.exec(MARK_DELIVERED, [row.event_id, at]);
    return 'delivered';
  }
  const retry = opts.retry ?? DEFAULT_RETRY;
  const next = at + retry.delayMs(row.attempts + 1, (opts.random ?? Math.random)());
  if (next > Number(row.created_at) + retry.windowMs) {
    await db.exec(MARK_FAILED, [row.event_id, at, result.error]);
    opts.log(`notify: ${row.event_id} for watch ${row.watch_id} failed after ${row.attempts + 1} attempts in ${Math.round(retry.windowMs / HOUR)} h: ${result.error}`);
    return 'failed';
  }
  await db.exec(MARK_RETRY, [row.event_id, at, next, result.error]);
  opts.log(`notify: ${row.event_id} for watch ${row.watch_id}: ${result.error}; attempt ${row.attempts + 2} in ${Math.max(1, Math.round((next - at) / SECOND))} s`);
  return 'retrying';
}

/** Attempts every delivery due now, each watch's in order, `concurrency` watches at once. */
export async function deliverDue(db: Db, opts: DeliveryOptions): Promise<DeliverySummary> {
  const now = opts.now ?? Date.now;
  const rows = await db.all<DueRow>(notifySql('due'), [now()]);
  const byWatch = new Map<string, DueRow[]>();
  for (const row of rows) byWatch.set(row.watch_id, [...(byWatch.get(row.watch_id) ?? []), row]);
  const summary: DeliverySummary = { delivered: 0, retrying: 0, failed: 0, deferred: 0 };
  const limit = pLimit(opts.concurrency ?? DEFAULT_CONCURRENCY);
  // Attempts overlap; the database takes one statement at a time.
  const store = pLimit(1);
  await Promise.all([...byWatch.values()].map((queue) => limit(async () => {
    for (const row of queue) {
      if (opts.deadline !== undefined && now() >= opts.deadline) {
        summary.deferred++;
        continue;
      }
      const result = await attempt(row, opts, now());
      summary[await store(() => settle(db, row, result, opts, now()))]++;
    }
  })));
  return summary;
}

/** When the next pending delivery is due (unix ms), or null when none is pending. */
export async function nextDue(db: Db): Promise<number | null> {
  const at = (await db.one<{ at: bigint | null }>(NEXT_DUE))?.at;
  return at === null || at === undefined ? null : Number(at);
}

export const summaryLine = (s: DeliverySummary): string =>
  `notify: ${s.delivered} delivered, ${s.retrying} to retry, ${s.failed} failed${s.deferred ? `, ${s.deferred} left for the next run (time was up)` : ''}`;

/** `watch test`: one signed watch.test event to a watch's webhook now, outside the outbox (no retry). */
export async function sendTest(watch: { url: string; secret: string }, data: EventData, opts: Pick<DeliveryOptions, 'allowPrivate' | 'limits' | 'resolve'>): Promise<PostOutcome> {
  const at = Date.now();
  const body = eventBody(data, at);
  return attempt({ event_id: data.id, watch_id: data.watch_id, attempts: 0, created_at: BigInt(at), body, url: watch.url, secret: watch.secret }, { ...opts, log: () => undefined }, at);
}
