/** Rewrites the release table of docs/static-hosting.md from src/api/release-files.ts (run: npm run docs:release). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withReleaseFiles } from './lib/release-doc.js';

const path = join(import.meta.dirname, '..', 'docs', 'static-hosting.md');
const before = readFileSync(path, 'utf8');
const after = withReleaseFiles(before);
writeFileSync(path, after);
console.log(after === before ? `${path} is up to date` : `rewrote the release table of ${path}`);
