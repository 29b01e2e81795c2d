/** Rewrites the constants table of docs/methodology.md from src/domain/model.ts (run: npm run docs:model). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withModelFacts } from './lib/model-doc.js';

const path = join(import.meta.dirname, '..', 'docs', 'methodology.md');
const before = readFileSync(path, 'utf8');
const after = withModelFacts(before);
writeFileSync(path, after);
console.log(after === before ? `${path} is up to date` : `rewrote the constants table of ${path}`);
