import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db, sqlString } from '../src/store/db.js';
import { exportTinyRelease, type TinyRelease } from './helpers/tiny-release.js';
import { DUMPS, dumpGlob } from '../src/export/dumps.js';
import { DUMP_VIEWS_PATH } from '../src/export/dump-views.js';

interface Column { name: string; type: string }

/** docs/dumps.md: each "## `<dump>`" section's table rows, `| `column` | `TYPE` / … | unit | meaning |`. */
function documentedDumps(): Map<string, Column[]> {
  const doc = readFileSync(new URL('../docs/dumps.md', import.meta.url), 'utf8');
  const dumps = new Map<string, Column[]>();
  for (const section of doc.split(/^## /m).slice(1)) {
    const name = /^`(\w+)`/.exec(section)?.[1];
    if (!name) continue;
    const rows = [...section.matchAll(/^\| `(\w+)` \| `([A-Z]+(?:\[\])?)` \/ /gm)];
    dumps.set(name, rows.map((m) => ({ name: m[1]!, type: m[2]! })));
  }
  return dumps;
}

let release: TinyRelease;
let db: Db;
const dumpDir = () => join(release.dir, 'dumps');
/** A dump's files as one read_parquet/read_csv pattern: its partitions, or its one file. */
const dumpFiles = (name: string, ext: 'parquet' | 'csv.gz') => join(release.dir, dumpGlob(DUMPS.find((d) => d.name === name)!, ext));

beforeAll(async () => {
  release = await exportTinyRelease();
  db = await Db.open(':memory:');
}, 300_000);

afterAll(() => {
  db?.close();
  if (release) rmSync(release.root, { recursive: true, force: true });
});

async function parquetColumns(name: string): Promise<Column[]> {
  const rows = await db.all<{ column_name: string; column_type: string }>(
    `DESCRIBE SELECT * FROM read_parquet(${sqlString(dumpFiles(name, 'parquet'))})`);
  return rows.map((r) => ({ name: r.column_name, type: r.column_type }));
}

function csvHeader(name: string): string[] {
  const dump = DUMPS.find((d) => d.name === name)!;
  const file = dump.height ? join(dumpDir(), name, readdirSync(join(dumpDir(), name)).find((f) => f.endsWith('.csv.gz'))!) : join(dumpDir(), `${name}.csv.gz`);
  const text = gunzipSync(readFileSync(file)).toString('utf8');
  return text.slice(0, text.indexOf('\n')).split(',');
}

describe('docs/dumps.md', () => {
  it('documents exactly the dumps a release has, each as Parquet and CSV.gz (partitioned by height where it has a height)', () => {
    // dumps/views.sql is the views over them (docs/dumps.md "Start here"), not a dump.
    const entries = readdirSync(dumpDir()).filter((f) => f !== DUMP_VIEWS_PATH.slice('dumps/'.length)).sort();
    const names = [...new Set(entries.map((f) => f.replace(/\.(parquet|csv\.gz)$/, '')))].sort();
    for (const name of names) {
      const files = DUMPS.find((d) => d.name === name)?.height
        ? readdirSync(join(dumpDir(), name)).map((f) => f.replace(/-\d{8}-\d{8}\./, '.'))
        : entries.filter((f) => f.startsWith(`${name}.`));
      expect([...new Set(files)].sort(), name).toEqual([`${name}.csv.gz`, `${name}.parquet`]);
    }
    expect([...documentedDumps().keys()].sort()).toEqual(names);
  });

  it('documents every column of every dump with its DuckDB type, and no column that is gone', async () => {
    const documented = documentedDumps();
    for (const [name, columns] of documented) {
      const actual = await parquetColumns(name);
      const byName = (cols: Column[]) => Object.fromEntries(cols.map((c) => [c.name, c.type]));
      expect(byName(columns), `dumps/${name}.parquet against docs/dumps.md`).toEqual(byName(actual));
    }
  });

  it('lists the columns in file order, and the CSV header is the Parquet columns', async () => {
    for (const [name, columns] of documentedDumps()) {
      const parquet = (await parquetColumns(name)).map((c) => c.name);
      expect(columns.map((c) => c.name), `docs/dumps.md order of ${name}`).toEqual(parquet);
      expect(csvHeader(name), `dumps/${name}.csv.gz header`).toEqual(parquet);
    }
  });

  it('describes the reasons of a link truly: five sentences, none holding the CSV separator', async () => {
    const rows = await db.all<{ reasons: string[] }>(
      `SELECT reasons FROM read_parquet(${sqlString(dumpFiles('links', 'parquet'))})`);
    expect(rows.length).toBeGreaterThan(0);
    for (const { reasons: parts } of rows) {
      expect(parts).toHaveLength(5);
      for (const part of parts) expect(part).not.toContain('; ');
      expect(parts[0]).toMatch(/^amount difference \d+ litoshi: /);
      expect(parts[1]).toMatch(/^\d+ candidate peg-in\(s\) in the window \[\d+\.\d{8}, \d+\.\d{8}\]$/);
      expect(parts[2]).toMatch(/^\d+ competing peg-out\(s\) could also be this peg-in's exit$/);
      expect(parts[3]).toMatch(/^block gap \d+ \(about \d+\.\d hours\)$/);
      expect(parts[4]).toMatch(/^weight \S+ against a none-of-these weight of \d\.\d\d: share \d\.\d{3} among this peg-out's candidates, \d\.\d{3} among this peg-in's exits$/);
    }
  });

  it('lists every dump in the Files table with the height column DUMPS declares', () => {
    const doc = readFileSync(new URL('../docs/dumps.md', import.meta.url), 'utf8');
    const files = doc.slice(doc.indexOf('## Files'), doc.indexOf('## ', doc.indexOf('## Files') + 3));
    const rows = [...files.matchAll(/^\| `(\w+)` \|.*\| (?:`(\w+)`|—) \|$/gm)].map((m) => [m[1], m[2] ?? null]);
    expect(rows).toEqual(DUMPS.map((d) => [d.name, d.height]));
  });
});
