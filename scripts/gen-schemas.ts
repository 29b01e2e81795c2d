/** Writes schemas/*.json and schemas/openapi.json from the declarations in src/api (run: npx tsx scripts/gen-schemas.ts). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemaFiles } from '../src/api/schemas.js';

const dir = join(import.meta.dirname, '..', 'schemas');
mkdirSync(dir, { recursive: true });
for (const [name, schema] of Object.entries(schemaFiles())) {
  writeFileSync(join(dir, name), `${JSON.stringify(schema, null, 2)}\n`);
}
console.log(`wrote ${Object.keys(schemaFiles()).length} files to ${dir}`);
