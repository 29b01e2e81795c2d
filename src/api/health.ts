import { ENDPOINTS } from './params.js';
import { ref, responseSchema, objectOf } from './common-schema.js';
import { document, type AnalysisStamp, type Envelope } from './envelope.js';

export const spec = ENDPOINTS.health;

export interface Health {
  ok: boolean;
  last_scanned_block: number;
  analysis_updated: number;
  analysis_age_seconds: number;
  pegins: number;
  pegouts: number;
}
export type HealthDocument = Envelope & { health: Health };

export const schema = responseSchema('health', 'health', {
  health: objectOf({
    ok: { type: 'boolean' }, last_scanned_block: ref('count'), analysis_updated: ref('count'),
    analysis_age_seconds: ref('count'), pegins: ref('count'), pegouts: ref('count'),
  }),
});

/** The exported health document; its age is 0 and the router recomputes it per request (healthAt). */
export function healthDocument(stamp: AnalysisStamp, counts: { last_scanned_block: number; pegins: number; pegouts: number }): HealthDocument {
  return document(stamp, {
    health: { ok: true, last_scanned_block: counts.last_scanned_block, analysis_updated: stamp.updated_at, analysis_age_seconds: 0, pegins: counts.pegins, pegouts: counts.pegouts },
  });
}

/** Analysis older than this is stale: health.ok turns false (the job has stopped publishing). */
export const DEFAULT_STALE_AFTER_SECONDS = 3600;

/** The health document as of `nowSeconds` (docs/api.md: age computed at request time). */
export function healthAt(doc: HealthDocument, nowSeconds: number, staleAfterSeconds = DEFAULT_STALE_AFTER_SECONDS): HealthDocument {
  const age = Math.max(0, Math.floor(nowSeconds) - doc.health.analysis_updated);
  return { ...doc, health: { ...doc.health, ok: age <= staleAfterSeconds, analysis_age_seconds: age } };
}
