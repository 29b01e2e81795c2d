/** Writes schemas/*.json and schemas/openapi.json from the declarations in src/api (run: npx tsx scripts/gen-schemas.ts). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemaFiles, schemaText } from '../src/api/schemas.js';

const dir = join(import.meta.dirname, '..', 'schemas');
mkdirSync(dir, { recursive: true });
const files = schemaFiles();
for (const [name, schema] of Object.entries(files)) writeFileSync(join(dir, name), schemaText(schema));
console.log(`wrote ${Object.keys(files).length} files to ${dir}`);
