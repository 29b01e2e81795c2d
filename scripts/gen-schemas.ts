/**
 * Writes schemas/*.json and schemas/openapi.json from the declarations in
 * src/api, and the wallet client's document types from those schemas
 * (packages/client/src/documents.d.ts). Run: npx tsx scripts/gen-schemas.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemaFiles, schemaText } from '../src/api/schemas.js';
import { documentTypes } from './lib/document-types.js';

const dir = join(import.meta.dirname, '..', 'schemas');
mkdirSync(dir, { recursive: true });
const files = schemaFiles();
for (const [name, schema] of Object.entries(files)) writeFileSync(join(dir, name), schemaText(schema));
console.log(`wrote ${Object.keys(files).length} files to ${dir}`);
const types = join(import.meta.dirname, '..', 'packages', 'client', 'src', 'documents.d.ts');
// From the files as written: the types follow schemas/, byte for byte what a reader of the schemas sees.
writeFileSync(types, documentTypes(Object.fromEntries(Object.entries(files).map(([name, schema]) => [name, JSON.parse(schemaText(schema)) as Record<string, unknown>]))));
console.log(`wrote ${types}`);
