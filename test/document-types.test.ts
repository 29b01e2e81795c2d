/**
 * The wallet client's document types (packages/client/src/documents.d.ts)
 * are generated from schemas/, and fit src/api's declarations of the same
 * documents: code written against those reads the client's documents. The
 * schemas are the stricter of the two (a label's category is one of the
 * categories, where src/api says string), so the fit is one way.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { documentTypes } from '../scripts/lib/document-types.js';

const ROOT = join(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'pegscope-document-types-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the client\'s document types', () => {
  it('are what scripts/gen-schemas.ts makes of schemas/ (run it after changing a schema)', () => {
    const dir = join(ROOT, 'schemas');
    const schemas = Object.fromEntries(readdirSync(dir).map((name) => [name, JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>]));
    expect(readFileSync(join(ROOT, 'packages/client/src/documents.d.ts'), 'utf8')).toBe(documentTypes(schemas));
  });

  it('are assignable to src/api\'s declarations of the same documents', () => {
    const api = (name: string) => JSON.stringify(join(ROOT, 'src', 'api', `${name}.js`));
    const file = join(work, 'match.ts');
    writeFileSync(file, `import type * as client from ${JSON.stringify(join(ROOT, 'packages/client/src/documents.js'))};
import type { TraceDocument } from ${api('trace')};
import type { AddressDocument } from ${api('address')};
import type { FollowDocument } from ${api('follow')};
import type { BlockDocument } from ${api('block')};
type Fits<A, B> = [A] extends [B] ? true : false;
export const checks: true[] = [
  true as Fits<client.TraceDocument, TraceDocument>,
  true as Fits<client.AddressDocument, AddressDocument>,
  true as Fits<client.FollowDocument, FollowDocument>,
  true as Fits<client.BlockDocument, BlockDocument>,
];
// @ts-expect-error: the check can fail (unused if Fits were always true)
export const differs: true = true as Fits<client.TraceDocument, BlockDocument>;
`);
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = ['--strict', '--noEmit', '--skipLibCheck', '--module', 'esnext', '--moduleResolution', 'bundler', '--target', 'es2022', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules/@types'), file];
    try {
      expect(execFileSync(process.execPath, [tsc, ...args], { cwd: work, encoding: 'utf8' })).toBe('');
    } catch (err) {
      throw new Error(`tsc:\n${(err as { stdout?: string }).stdout ?? err}`);
    }
  }, 60_000);
});
