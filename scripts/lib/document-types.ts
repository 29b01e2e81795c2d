/**
 * TypeScript declarations of the per-query documents (trace, address,
 * follow, block) from their JSON Schemas, for the wallet client
 * (packages/client/src/documents.d.ts): what `RangeClient.document` returns
 * is typed by the same schemas the router and the export are tested
 * against, with no runtime code. Covers the subset of JSON Schema that
 * schemas/ uses; anything else throws, so a new construct cannot be typed
 * loosely by accident.
 */
type Schema = Record<string, unknown>;

/** The range kinds and the name of their document type. */
export const DOCUMENT_TYPES = { trace: 'TraceDocument', address: 'AddressDocument', follow: 'FollowDocument', block: 'BlockDocument' } as const;

const COMMON_REF = /^common\.json#\/\$defs\/(\w+)$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

const pascal = (name: string): string => name.split('_').map((part) => part[0]!.toUpperCase() + part.slice(1)).join('');
const union = (types: string[]): string => [...new Set(types)].join(' | ');
/** Whether `schema` is typed as a union, which needs parentheses as an array's element: (A | B)[]. */
const isUnion = (schema: Schema): boolean => [schema.enum, schema.anyOf, schema.oneOf, schema.type].some((list) => Array.isArray(list) && list.length > 1);

/** The TypeScript type of `schema`; `defs` collects the common.json definitions it refers to. */
function typeOf(schema: Schema, defs: Set<string>): string {
  if (typeof schema.$ref === 'string') {
    const name = COMMON_REF.exec(schema.$ref)?.[1];
    if (!name) throw new Error(`unsupported $ref ${schema.$ref}`);
    defs.add(name);
    return pascal(name);
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map((value) => JSON.stringify(value)));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives) return union(alternatives.map((alternative) => typeOf(alternative, defs)));
  if (Array.isArray(schema.type)) return union((schema.type as string[]).map((type) => typeOf({ ...schema, type }, defs)));
  switch (schema.type) {
    case 'string': return 'string';
    case 'integer':
    case 'number': return 'number';
    case 'boolean': return 'boolean';
    case 'null': return 'null';
    case 'array': {
      if (Array.isArray(schema.prefixItems)) return `[${(schema.prefixItems as Schema[]).map((item) => typeOf(item, defs)).join(', ')}]`;
      if (!schema.items) throw new Error('an array schema without items');
      const items = schema.items as Schema;
      return isUnion(items) ? `(${typeOf(items, defs)})[]` : `${typeOf(items, defs)}[]`;
    }
    case 'object': return objectType(schema, defs);
    default: throw new Error(`unsupported schema ${JSON.stringify(schema).slice(0, 200)}`);
  }
}

/** Members on one line each at the top of a declaration, inline below it: the package is kept under 53 KB installed. */
function objectType(schema: Schema, defs: Set<string>, top = false): string {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const extra = schema.additionalProperties;
  const names = Object.keys(properties);
  if (names.length === 0) return typeof extra === 'object' ? `Record<string, ${typeOf(extra as Schema, defs)}>` : 'Record<string, never>';
  if (extra !== false) throw new Error(`an object with properties that allows others: ${names.join(', ')}`);
  const members = names.map((name) => {
    const property = properties[name]!;
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    const doc = typeof property.description === 'string' ? `/** ${property.description.replace(/\*\//g, '*\\/')} */ ` : '';
    return `${doc}${key}${required.has(name) ? '' : '?'}: ${typeOf(property, defs)};`;
  });
  return top ? `{\n${members.map((member) => `  ${member}`).join('\n')}\n}` : `{ ${members.join(' ')} }`;
}

/** The top-level properties every document has alike (version, network, …): the envelope of docs/api.md. */
function sharedProperties(documents: Schema[]): Record<string, Schema> {
  const [first, ...rest] = documents.map((schema) => (schema.properties ?? {}) as Record<string, Schema>);
  return Object.fromEntries(Object.entries(first ?? {}).filter(([name, property]) =>
    rest.every((properties) => JSON.stringify(properties[name]) === JSON.stringify(property))));
}

/** `schema` without the envelope's properties. */
function withoutEnvelope(schema: Schema, envelope: Record<string, Schema>): Schema {
  const properties = Object.fromEntries(Object.entries(schema.properties as Record<string, Schema>).filter(([name]) => !(name in envelope)));
  return { ...schema, properties, required: ((schema.required ?? []) as string[]).filter((name) => !(name in envelope)) };
}

/**
 * The declarations file: one type per document and per common definition
 * they use (named after it: pegin_node → PeginNode), and RangeDocuments,
 * the document type of each range kind.
 */
export function documentTypes(schemas: Record<string, Schema>): string {
  const common = ((schemas['common.json'] ?? {}).$defs ?? {}) as Record<string, Schema>;
  const defs = new Set<string>();
  const sources = Object.entries(DOCUMENT_TYPES).map(([kind, name]) => {
    const schema = schemas[`${kind}.json`];
    if (!schema) throw new Error(`schemas/${kind}.json is missing`);
    return { kind, name, schema };
  });
  const shared = sharedProperties(sources.map(({ schema }) => schema));
  const envelope = `/** docs/api.md, "Every JSON body" */\nexport type Envelope = ${objectType({ ...sources[0]!.schema, properties: shared, required: Object.keys(shared) }, defs, true)};`;
  const documents = sources.map(({ kind, name, schema }) =>
    `/** schemas/${kind}.json */\nexport type ${name} = Envelope & ${objectType(withoutEnvelope(schema, shared), defs, true)};`);
  // Definitions refer to each other: type each one until no new name turns up.
  const written = new Map<string, string>();
  for (let pending = [...defs]; pending.length > 0; pending = [...defs].filter((name) => !written.has(name))) {
    for (const name of pending) {
      const schema = common[name];
      if (!schema) throw new Error(`common.json has no $defs/${name}`);
      written.set(name, `export type ${pascal(name)} = ${schema.type === 'object' && schema.properties ? objectType(schema, defs, true) : typeOf(schema, defs)};`);
    }
  }
  const kinds = Object.entries(DOCUMENT_TYPES).map(([kind, name]) => `  ${kind}: ${name};`).join('\n');
  return [
    '// Generated by scripts/gen-schemas.ts from schemas/*.json: do not edit.',
    '',
    envelope,
    '',
    ...documents.flatMap((text) => [text, '']),
    '/** The document of each range kind: what RangeClient.document(kind, q) finds. */',
    `export interface RangeDocuments {\n${kinds}\n}`,
    '',
    ...[...written.keys()].sort().flatMap((name) => [written.get(name)!, '']),
  ].join('\n');
}
