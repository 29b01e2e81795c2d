import { describe, expect, it } from 'vitest';
import { healthAt, healthDocument } from '../src/api/health.js';
import type { AnalysisStamp } from '../src/api/envelope.js';

const stamp: AnalysisStamp = { network: 'sim', as_of_height: 100, updated_at: 1_000_000 };
const doc = healthDocument(stamp, { last_scanned_block: 100, pegins: 3, pegouts: 2 });

describe('health', () => {
  it('computes the analysis age at request time', () => {
    expect(healthAt(doc, 1_000_090).health.analysis_age_seconds).toBe(90);
  });

  it('turns ok false once the analysis is older than the staleness bound', () => {
    expect(healthAt(doc, 1_000_000 + 600, 600).health.ok).toBe(true);
    expect(healthAt(doc, 1_000_000 + 601, 600).health.ok).toBe(false);
    expect(healthAt(doc, 1_000_000 + 3601).health.ok).toBe(false);
  });
});
