import { ENDPOINTS } from './params.js';
import { ref, responseSchema, objectOf } from './common-schema.js';
import { document, type AnalysisStamp, type Envelope } from './envelope.js';

export const spec = ENDPOINTS.health;

export interface Health {
  ok: boolean;
  last_scanned_block: number;
  analysis_updated: number;
  analysis_age_seconds: number;
  /** The job's last successful check of the chain (unix seconds): at least analysis_updated; later when the job found nothing new to publish. */
  last_check: number;
  check_age_seconds: number;
  pegins: number;
  pegouts: number;
}
export type HealthDocument = Envelope & { health: Health };

export const schema = responseSchema('health', 'health', {
  health: objectOf({
    ok: { type: 'boolean' }, last_scanned_block: ref('count'), analysis_updated: ref('count'),
    analysis_age_seconds: ref('count'), last_check: ref('count'), check_age_seconds: ref('count'), pegins: ref('count'), pegouts: ref('count'),
  }),
});

/** The exported health document; its age is 0 and the router recomputes it per request (healthAt). */
export function healthDocument(stamp: AnalysisStamp, counts: { last_scanned_block: number; pegins: number; pegouts: number }): HealthDocument {
  return document(stamp, {
    health: {
      ok: true, last_scanned_block: counts.last_scanned_block, analysis_updated: stamp.updated_at, analysis_age_seconds: 0,
      last_check: stamp.updated_at, check_age_seconds: 0, pegins: counts.pegins, pegouts: counts.pegouts,
    },
  });
}

/** A check older than this is stale: health.ok turns false (the job has stopped checking the chain). */
export const DEFAULT_STALE_AFTER_SECONDS = 3600;

/**
 * The health document as of `nowSeconds` (docs/api.md: ages computed at
 * request time). `checkedAt` is the job's last successful check
 * (JOB_CHECK_FILE), null when none is recorded: the analysis time stands
 * for it. ok turns false only when the last check is stale, so a quiet
 * chain (no new block, nothing published) stays healthy while the job runs.
 */
export function healthAt(doc: HealthDocument, nowSeconds: number, staleAfterSeconds = DEFAULT_STALE_AFTER_SECONDS, checkedAt: number | null = null): HealthDocument {
  const now = Math.floor(nowSeconds);
  const updated = doc.health.analysis_updated;
  const lastCheck = Math.max(updated, doc.health.last_check ?? updated, checkedAt ?? updated);
  const checkAge = Math.max(0, now - lastCheck);
  return {
    ...doc,
    health: { ...doc.health, ok: checkAge <= staleAfterSeconds, analysis_age_seconds: Math.max(0, now - updated), last_check: lastCheck, check_age_seconds: checkAge },
  };
}

/**
 * Where the job records its last successful check, beside the releases
 * (out/<network>/checked.json, never inside a release: checking changes no
 * published byte). Written atomically after every successful run, whether
 * it published a release or found nothing new.
 */
export const JOB_CHECK_FILE = 'checked.json';

/** What JOB_CHECK_FILE holds. */
export interface JobCheck {
  /** Unix seconds of the check. */
  checked_at: number;
  /** The release current named after it, and its height. */
  release: string;
  as_of_height: number;
}

/** The check recorded in JOB_CHECK_FILE's text, or null when it is not one (a health answer never fails on it). */
export function parseJobCheck(text: string): JobCheck | null {
  try {
    const check = JSON.parse(text) as Partial<JobCheck> | null;
    const count = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
    return check && count(check.checked_at) && count(check.as_of_height) && typeof check.release === 'string'
      ? { checked_at: check.checked_at, release: check.release, as_of_height: check.as_of_height } : null;
  } catch {
    return null;
  }
}
