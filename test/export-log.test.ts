import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/store/db.js';
import type { SimSource } from '../src/chain/sim/index.js';
import type { Progress } from '../src/progress.js';
import { exportRelease, type ExportResult } from '../src/export/export.js';
import { NO_HOST_BUDGET } from '../src/export/ranges.js';
import { analysedDb, scanAndAnalyze } from './helpers/export-pipeline.js';

const NOW = 1_800_000_000;
let work: string;
let db: Db;
let source: SimSource;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-export-log-'));
  ({ db, source } = await analysedDb(join(work, 'db.duckdb'), 12, 2_000, NOW));
}, 300_000);
afterAll(async () => {
  db.close();
  await source.close();
  rmSync(work, { recursive: true, force: true });
});

/** One progress bar as the export drove it: its label, total and every count it was given. */
interface Bar { label: string; total: number; counts: number[] }

function recordingProgress(bars: Bar[]): Progress {
  return {
    start: (label, total) => { bars.push({ label, total, counts: [] }); },
    update: (done) => { bars.at(-1)!.counts.push(done); },
    stop: () => undefined,
  };
}

/** An export into `site` with its log lines and progress bars. */
async function logged(site: string, opts: { renderBatchDocs?: number } = {}): Promise<{ result: ExportResult; lines: string[]; bars: Bar[] }> {
  const lines: string[] = [];
  const bars: Bar[] = [];
  const result = await exportRelease(db, { outDir: join(work, site), hostBudget: NO_HOST_BUDGET, log: (l) => lines.push(l), progress: recordingProgress(bars), ...opts });
  return { result, lines, bars };
}

const documentFiles = (lines: string[]): { written: number; carried: number } => {
  const match = /^document files: (\d+) written, (\d+) carried over unchanged from the previous release$/.exec(lines.find((l) => l.startsWith('document files:')) ?? '');
  expect(match, lines.join('\n')).not.toBeNull();
  return { written: Number(match![1]), carried: Number(match![2]) };
};

describe('the export log', () => {
  it('says every document is rendered only when no file is carried over, and counts the document files written and carried', async () => {
    const first = await logged('models');
    expect(first.lines.find((l) => l.startsWith('rendering'))).toMatch(/^rendering (\d+) of \1 documents: every document \(no previous release to build on\)$/);
    expect(documentFiles(first.lines)).toEqual({ written: expect.any(Number), carried: 0 });

    // The previous release made by another model: every document is rendered to compare, but the unchanged ones' files are linked.
    const statePath = join(first.result.stateDir, 'state.json');
    writeFileSync(statePath, JSON.stringify({ ...JSON.parse(readFileSync(statePath, 'utf8')), model: 'another model' }));
    const second = await logged('models');
    expect(second.result.reused).toBeGreaterThan(0);
    const rendering = second.lines.find((l) => l.startsWith('rendering'))!;
    expect(rendering).not.toMatch(/: every document/);
    expect(rendering).toMatch(/^rendering (\d+) of \1 documents to compare with the previous release \(the previous release was made by another model\): .*linked, not written$/);
    const files = documentFiles(second.lines);
    expect(files.carried).toBeGreaterThan(0);
    // Every document file of the first release is in the second: written again or carried over.
    expect(files.written + files.carried).toBe(documentFiles(first.lines).written);
  }, 300_000);

  it('ends each progress bar at what was written: the range files built, not the last step before them', async () => {
    // Small batches: each batch's range files get a bar of their own, of a few files.
    const { lines, bars } = await logged('progress', { renderBatchDocs: 50 });
    const rangeBars = bars.filter((b) => b.label.startsWith('export range:'));
    expect(rangeBars.some((b) => b.total % 16 !== 0)).toBe(true);
    for (const bar of rangeBars) expect(bar.counts.at(-1) ?? 0, bar.label).toBe(bar.total);
    // Range files are the document files of this layout: the bars add up to those written.
    expect(rangeBars.reduce((sum, b) => sum + b.total, 0)).toBe(documentFiles(lines).written);
  }, 300_000);

  it('on a chain shorter than two horizons, renders only what changed: nothing for the same analysis, the changed pegs after new blocks', async () => {
    const first = await logged('short');
    const keys = Number(/^rendering (\d+) of \1 documents/.exec(first.lines.find((l) => l.startsWith('rendering'))!)?.[1]);
    expect(keys).toBeGreaterThan(0);
    const again = await logged('short');
    expect(again.lines.find((l) => l.startsWith('rendering'))).toBe(`rendering 0 of ${keys} documents: the analysis is the one the previous release shows, so no peg or address changed`);
    await scanAndAnalyze(db, source, 2_150, NOW + 600);
    const grown = await logged('short');
    const rendering = grown.lines.find((l) => l.startsWith('rendering'))!;
    const match = /^rendering (\d+) of (\d+) documents: the documents of changed pegs above height 0 and of addresses whose attribution changed$/.exec(rendering);
    expect(match, rendering).not.toBeNull();
    expect(Number(match![1])).toBeGreaterThan(0);
    expect(Number(match![1])).toBeLessThan(Number(match![2]) / 2);
  }, 300_000);
});
