import { describe, expect, it } from 'vitest';
import { healthAt, healthDocument, parseJobCheck } from '../src/api/health.js';
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

  it('stays ok while the job keeps checking a quiet chain, and reports both ages', () => {
    const quiet = healthAt(doc, 1_000_000 + 7200, 600, 1_000_000 + 7000).health;
    expect(quiet).toMatchObject({ ok: true, analysis_age_seconds: 7200, last_check: 1_007_000, check_age_seconds: 200 });
    expect(healthAt(doc, 1_000_000 + 7200, 600, 1_000_000 + 6599).health.ok).toBe(false);
  });

  it('never takes a check older than the analysis for the last one', () => {
    expect(healthAt(doc, 1_000_090, 600, 999_000).health).toMatchObject({ last_check: 1_000_000, check_age_seconds: 90 });
  });

  it('reads a recorded check, and refuses what is not one', () => {
    expect(parseJobCheck('{"checked_at":5,"release":"r","as_of_height":1}')).toEqual({ checked_at: 5, release: 'r', as_of_height: 1 });
    for (const text of ['', 'null', '{"checked_at":-1,"release":"r","as_of_height":1}', '{"checked_at":"5","release":"r","as_of_height":1}', '[1]']) {
      expect(parseJobCheck(text), text).toBeNull();
    }
  });
});
