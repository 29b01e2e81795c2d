/**
 * `job --labels-public` (docs/labels.md "Refreshing"): the job imports
 * TagPacks that do not set is_public, as graphsense-tagpacks' packs, and
 * without the flag says why none of their tags was imported.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/config.js';
import { runJob } from '../src/job.js';
import { silentProgress } from '../src/progress.js';
import { Db } from '../src/store/db.js';

const dir = mkdtempSync(join(tmpdir(), 'pegscope-job-labels-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = resolveConfig({ network: 'sim', db: join(dir, 'sim.duckdb'), out: join(dir, 'out') });
/** A sim-network pack in graphsense-tagpacks' shape: no is_public, the header's label inherited, currencies mixed. */
const PACK = ['title: Job shape pack', 'creator: pegscope tests', 'label: Job Shape Exchange', 'category: exchange', 'tags:',
  '- address: rltc1qrzeet95v2p4dlwx7t6w6d5mq6j9zcsxl6ty78w', '  currency: LTC',
  '- address: 1BoatSLRHtKNngkdXEeobR76b53LETtpyT', '  currency: BTC', ''].join('\n');

describe('probe: job --labels with graphsense-tagpacks\' packs', () => {
  it('imports them with --labels-public, and without it says which flag imports them', async () => {
    const pack = join(dir, 'pack.yaml');
    writeFileSync(pack, PACK);
    const lines: string[] = [];
    const run = (labelsPublic: boolean) => runJob(config, { source: 'sim', preset: 'tiny', seed: 3, to: 300, labels: [pack], labelsPublic, log: (l) => lines.push(l), progress: silentProgress });

    await run(false);
    // The simulated chain's own labels import, so the run imports some: the note still names the skipped tags and the flag.
    expect(lines).toContainEqual(expect.stringMatching(/^labels: 1 Litecoin tags skipped: their TagPacks do not set is_public: true, .*; pass --labels-public /));
    lines.length = 0;
    await run(true);
    expect(lines.join('\n')).not.toMatch(/skipped: their TagPacks/);
    const db = await Db.open(config.dbPath);
    try {
      expect(await db.all("SELECT address, entity FROM labels WHERE source_kind = 'tagpack'")).toEqual([
        { address: 'rltc1qrzeet95v2p4dlwx7t6w6d5mq6j9zcsxl6ty78w', entity: 'Job Shape Exchange' }]);
    } finally {
      db.close();
    }
  }, 240_000);
});
