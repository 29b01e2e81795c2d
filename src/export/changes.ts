/**
 * changes.json (docs/static-hosting.md): the files added, changed and removed since the
 * previous release, with size and sha256, so a mirror uploads only those
 * (docs/static-hosting.md). Compared with the previous release's manifest,
 * whatever the export reused, so an incremental and a full export of the
 * same history write the same bytes.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnalysisStamp } from '../api/envelope.js';
import { toJson } from '../api/json.js';
import { API_VERSION } from '../api/params.js';
import { CHANGES_FILE, MANIFEST_FILE } from '../api/release-files.js';
import type { Db } from '../store/db.js';
import { writeLines } from './manifest.js';
import { sha256 } from './writer.js';
import { exportSql } from './sql.js';

const PREVIOUS_MANIFEST = exportSql('changes-previous');
const NO_PREVIOUS_MANIFEST = 'CREATE OR REPLACE TEMP TABLE x_prev_manifest (path VARCHAR, size BIGINT, sha256 VARCHAR)';
/**
 * The previous release's manifest as its files index (the writer's
 * x_prev_files) and its changes.json ($1 path, $2 size, $3 sha256): what the
 * manifest lists, without parsing its lines again.
 */
const PREVIOUS_FILES = `CREATE OR REPLACE TEMP TABLE x_prev_manifest AS
  SELECT path, size, sha256 FROM x_prev_files UNION ALL SELECT $1, $2, $3`;
const PLAN_CHANGES = exportSql('changes');
const CHANGE_LINES = exportSql('changes-lines');
const CHANGE_COUNTS = `SELECT count(*) FILTER (WHERE change = 'added') AS added, count(*) FILTER (WHERE change = 'changed') AS changed,
  count(*) FILTER (WHERE change = 'removed') AS removed FROM x_changes`;

/** How many files changes.json lists as added, changed and removed. */
export interface ChangeCounts { added: number; changed: number; removed: number }

/** What changes.json says about the release it compares with. */
interface PreviousRelease { as_of_height: number; updated_at: number }

async function previousStamp(manifest: string): Promise<PreviousRelease | null> {
  const head = (await readFile(manifest, 'utf8')).slice(0, 4096);
  const match = /"as_of_height":(\d+),"updated_at":(\d+)/.exec(head);
  return match ? { as_of_height: Number(match[1]), updated_at: Number(match[2]) } : null;
}

/**
 * Writes changes.json into `dir` from x_files against `previousDir`'s
 * manifest (everything is added when there is none); returns how many files
 * it lists. With `previousListed`, the writer's x_prev_files is that
 * release's files index, which lists what its manifest does but
 * changes.json.
 */
export async function writeChanges(db: Db, dir: string, previousDir: string | null, stamp: AnalysisStamp, previousListed: boolean): Promise<ChangeCounts> {
  const manifest = previousDir ? join(previousDir, MANIFEST_FILE) : null;
  const hasPrevious = manifest !== null && existsSync(manifest);
  const listedChanges = hasPrevious && previousListed ? join(previousDir!, CHANGES_FILE) : null;
  if (listedChanges && existsSync(listedChanges)) {
    const bytes = await readFile(listedChanges);
    await db.exec(PREVIOUS_FILES, [CHANGES_FILE, bytes.length, sha256(bytes)]);
  } else {
    await db.exec(hasPrevious ? PREVIOUS_MANIFEST : NO_PREVIOUS_MANIFEST, hasPrevious ? [manifest] : undefined);
  }
  await db.exec(PLAN_CHANGES);
  const head = toJson({
    version: API_VERSION, network: stamp.network, as_of_height: stamp.as_of_height, updated_at: stamp.updated_at,
    previous: hasPrevious ? await previousStamp(manifest) : null,
  });
  await writeLines(db, join(dir, CHANGES_FILE), `${head.slice(0, -1)},`, CHANGE_LINES, '}');
  const counts = (await db.one<Record<keyof ChangeCounts, bigint>>(CHANGE_COUNTS))!;
  return { added: Number(counts.added), changed: Number(counts.changed), removed: Number(counts.removed) };
}
