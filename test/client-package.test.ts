/**
 * The wallet package as a wallet installs it: `npm pack` of
 * packages/client unpacked into a fresh node_modules, then used from Node
 * ESM and CommonJS, from a browser bundle and a React Native-style bundle
 * (esbuild, run in a context with no Node globals), and type-checked by
 * consumer files under TypeScript's node16, bundler and node10 resolution.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { build, type BuildOptions } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHash, parseAmountTable, privacyOf, rangePath, rangePrefix, type AmountTableFile, type RangeHeader } from '@pegscope/client';
import { formatTrustedComment, generateSecretKey, publicKeyFile, signBytes } from '../src/trust/minisign.js';
import { buildAmountCounts, encodeAmountTable } from '../src/api/amount-table-encode.js';
import { encodeRange } from '../src/api/range-file.js';

const ROOT = join(import.meta.dirname, '..');
const PACKAGE = join(ROOT, 'packages', 'client');
/** The installed size a wallet pays. */
const MAX_INSTALLED_BYTES = 60_000;

interface PackEntry { unpackedSize: number; size: number; files: { path: string; size: number }[]; filename: string }

let work: string;
let consumer: string;
let packed: PackEntry;

/** A table and a range file the consumers read, and what they must compute from them. */
const TABLE: AmountTableFile = encodeAmountTable(
  { network: 'mainnet', as_of_height: 2_900_000, updated_at: 1_800_000_000, horizon_blocks: 34_560, rounding_digits: 2 },
  buildAmountCounts({ pegin: [[100_000_000, 40], [149_990_000, 1], [150_100_000, 3], [123_456_789, 1]], pegout: [[99_993_590, 2]] }),
);
const KEY = 'a'.repeat(64);
const PREFIX = rangePrefix(KEY, 2);
const RANGE_HEADER: RangeHeader = {
  version: '1', network: 'mainnet', unit: 'LTC', as_of_height: 2_900_000, updated_at: 1_800_000_000,
  range: { kind: 'trace', prefix: PREFIX, hash: 'sha256', keys: [KEY] },
};
const RANGE_TEXT = encodeRange(RANGE_HEADER, ['{"trace":{"query":"found"}}']);
/** The release's signed index (docs/verifying.md) and its shard, signed with SIGNING_KEY. */
const SIGNING_KEY = generateSecretKey();
const SHARD_TEXT = JSON.stringify({ kind: 'trace', shard: PREFIX[0], ranges: { [PREFIX]: keyHash(RANGE_TEXT) } });
const SIGNED_TEXT = JSON.stringify({
  version: '1', network: 'mainnet', as_of_height: 2_900_000, files: {},
  ranges: { trace: { prefix_length: 2, shard_length: 1, shards: { [PREFIX[0]!]: keyHash(SHARD_TEXT) } } },
});
const FILES: Record<string, string> = {
  'https://mirror.example/api/ranges.json': JSON.stringify({ ...RANGE_HEADER, range: undefined, layout: 'ranges', kinds: { trace: { prefix_length: 2, hash: 'sha256', documents: 1 } } }),
  [`https://mirror.example/${rangePath('trace', PREFIX)}`]: RANGE_TEXT,
  'https://mirror.example/api/signed.json': SIGNED_TEXT,
  'https://mirror.example/api/signed.json.minisig': signBytes(new TextEncoder().encode(SIGNED_TEXT), SIGNING_KEY, formatTrustedComment([
    ['timestamp', 1_800_000_000], ['file', 'api/signed.json'], ['network', 'mainnet'], ['as_of_height', 2_900_000], ['release', 'r1'], ['key_id', SIGNING_KEY.keyIdHex],
  ]), 'Ed'),
  [`https://mirror.example/api/signed/trace/${PREFIX[0]!}.json`]: SHARD_TEXT,
};
const PUBLIC_KEY = publicKeyFile(SIGNING_KEY).split('\n')[1]!;
const EXPECTED = {
  privacy: privacyOf(parseAmountTable(TABLE, { network: 'mainnet', now: 1_800_000_600 }).table, 150_000_000, 'pegin'),
  age: 600,
  hash: keyHash('ltc1example'),
  found: '{"trace":{"query":"found"}}',
  wrongNetwork: 'not a usable amount table: it is the mainnet table, but testnet was asked for',
  verified: { found: '{"trace":{"query":"found"}}', height: 2_900_000, key: PUBLIC_KEY },
  doctored: ['VerificationError', 'digest'],
  forged: ['SignatureError', 'signature', 'api/signed.json: the signature by key ' + SIGNING_KEY.keyIdHex + ' does not match the file'],
};

/** The consumer program, the same for every way of loading the package: it prints (or returns) what it computed. */
const program = (load: string): string => `${load}
const { parseAmountTable, privacyOf, parseCoinAmount, keyHash, RangeClient } = client;
async function run(table, files) {
  const { table: t, ageSeconds } = parseAmountTable(table, { network: 'mainnet', now: 1800000600 });
  let wrongNetwork = null;
  try { parseAmountTable(table, { network: 'testnet' }); } catch (err) { wrongNetwork = err.message; }
  const fetch = async (url) => ({ ok: url in files, status: url in files ? 200 : 404, text: async () => files[url] ?? '' });
  const found = await new RangeClient({ base: 'https://mirror.example', network: 'mainnet', fetch }).document('trace', '${KEY.toUpperCase()}');
  // Signed: WebCrypto's Ed25519 where the platform has it, else the bundled @noble/ed25519 (no crypto global at all in the bundles' context).
  const signed = new RangeClient({ base: 'https://mirror.example', network: 'mainnet', fetch, publicKeys: ['${PUBLIC_KEY}'] });
  const verifiedFound = await signed.document('trace', '${KEY}');
  const verified = { found: verifiedFound && verifiedFound.text, height: signed.verifiedHeight, key: (await signed.verified()).public_key };
  const refusal = async (changed) => {
    const doctoredFetch = async (url) => (url in changed ? { ok: true, status: 200, text: async () => changed[url] } : fetch(url));
    try { await new RangeClient({ base: 'https://mirror.example', network: 'mainnet', fetch: doctoredFetch, publicKeys: ['${PUBLIC_KEY}'] }).document('trace', '${KEY}'); } catch (err) {
      return [err.name, err.failure, err instanceof client.VerificationError ? err.message : 'not a VerificationError'];
    }
    return null;
  };
  const range = files['https://mirror.example/${rangePath('trace', PREFIX)}'];
  const doctored = (await refusal({ 'https://mirror.example/${rangePath('trace', PREFIX)}': range.replace('found', 'FOUND') })).slice(0, 2);
  const forged = await refusal({ 'https://mirror.example/api/signed.json': files['https://mirror.example/api/signed.json'].replace('2900000', '2900001') });
  return { privacy: privacyOf(t, parseCoinAmount('1.5'), 'pegin'), age: ageSeconds, hash: keyHash('ltc1example'), found: found && found.text, wrongNetwork, verified, doctored, forged };
}
`;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'pegscope-client-pkg-'));
  // --ignore-scripts: dist/ is built by the global setup; packing must not rebuild it under the other test files.
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: PACKAGE, encoding: 'utf8' });
  packed = (JSON.parse(out) as PackEntry[])[0]!;
  consumer = join(work, 'consumer');
  const installed = join(consumer, 'node_modules', '@pegscope', 'client');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['xzf', join(work, packed.filename), '-C', installed, '--strip-components=1']);
  writeFileSync(join(consumer, 'package.json'), '{"name":"wallet","private":true}\n');
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it(`installs under ${MAX_INSTALLED_BYTES / 1000} KB with no dependencies, install scripts or native code`, () => {
    const dry = (JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE, encoding: 'utf8' })) as PackEntry[])[0]!;
    expect(dry.unpackedSize).toBe(packed.unpackedSize);
    expect(dry.unpackedSize).toBeLessThan(MAX_INSTALLED_BYTES);
    expect(dry.files.map((f) => f.path).filter((p) => !/^(?:dist\/[\w-]+\.(?:js|js\.map|mjs|d\.ts|d\.mts)|package\.json|README\.md|LICENSE)$/.test(p))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules/@pegscope/client/package.json'), 'utf8')) as Record<string, unknown>;
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies', 'gypfile']) expect(manifest[field], field).toBeUndefined();
    const scripts = (manifest.scripts ?? {}) as Record<string, string>;
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts[hook], hook).toBeUndefined();
  });

  it('is MIT-licensed (the rest of pegscope is AGPL-3.0), with the licence text and where its source and issues are', () => {
    const installed = join(consumer, 'node_modules/@pegscope/client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.license).toBe('MIT');
    const licence = readFileSync(join(installed, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} pegscope contributors\n/);
    expect(manifest.repository).toEqual({ type: 'git', url: 'git+https://github.com/pegscope/pegscope.git', directory: 'packages/client' });
    expect(manifest.homepage).toBe('https://github.com/pegscope/pegscope/tree/main/packages/client#readme');
    expect(manifest.bugs).toEqual({ url: 'https://github.com/pegscope/pegscope/issues' });
  });

  it('its sources import nothing but each other and the bundled @noble/ed25519: no other npm package, no node: builtin, no Node global', () => {
    const src = join(PACKAGE, 'src');
    for (const file of readdirSync(src)) {
      const text = readFileSync(join(src, file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:import|export)[^'"]*?from\s+'([^']+)'/g)) {
        expect(spec, `${file} imports ${spec}`).toMatch(file === 'ed25519.ts' ? /^(?:\.\/[\w-]+\.js|@noble\/ed25519)$/ : /^\.\/[\w-]+\.js$/);
      }
      expect(text, file).not.toMatch(/\b(?:process|Buffer|require|__dirname)\b[.(]/);
    }
    // @noble/ed25519 is bundled at build time: the built package requires nothing.
    expect(readFileSync(join(PACKAGE, 'dist/index.js'), 'utf8')).not.toMatch(/\brequire\(/);
  });
});

describe('runs wherever a wallet runs', () => {
  it.each([
    ['Node ESM (import)', 'main.mjs', "import * as client from '@pegscope/client';"],
    ['Node CommonJS (require)', 'main.cjs', "const client = require('@pegscope/client');"],
  ])('%s', (_name, file, load) => {
    writeFileSync(join(consumer, file), `${program(load)}
run(${JSON.stringify(TABLE)}, ${JSON.stringify(FILES)}).then((r) => console.log(JSON.stringify(r)));
`);
    const out = execFileSync(process.execPath, [file], { cwd: consumer, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(EXPECTED);
  });

  it('its errors keep their class names, in `name`, in instanceof and when printed', () => {
    writeFileSync(join(consumer, 'errors.cjs'), `const { inspect } = require('node:util');
const client = require('@pegscope/client');
const caught = (f) => { try { f(); } catch (err) { return err; } };
const errors = {
  AmountTableError: caught(() => client.parseAmountTable({}, { network: 'mainnet' })),
  AmountError: caught(() => client.parseCoinAmount('1,5')),
  RangeFormatError: caught(() => client.parseRange('not a range')),
  LookupError: new client.LookupError('x'),
  SignatureError: caught(() => client.parsePublicKey('RWQ')),
  VerificationError: new client.VerificationError('x', 'digest'),
};
console.log(JSON.stringify(Object.entries(errors).map(([name, err]) => [name, err instanceof client[name], err.name, inspect(err).split('\\n')[0].split(':')[0]])));
`);
    expect(JSON.parse(execFileSync(process.execPath, ['errors.cjs'], { cwd: consumer, encoding: 'utf8' }))).toEqual(
      ['AmountTableError', 'AmountError', 'RangeFormatError', 'LookupError', 'SignatureError', 'VerificationError'].map((name) => [name, true, name, name]),
    );
  });

  it('a stack frame names the installed bundle, and the error says what failed (no source map: it cost a tenth of the budget)', () => {
    writeFileSync(join(consumer, 'trace.cjs'), `const { RangeClient } = require('@pegscope/client');
try { new RangeClient({ base: 'https://mirror.example', network: 'nope' }); } catch (err) { console.log(err.stack.split('\\n').slice(0, 2).join('\\n')); }
`);
    const [message, frame] = execFileSync(process.execPath, ['--enable-source-maps', 'trace.cjs'], { cwd: consumer, encoding: 'utf8' }).trim().split('\n');
    expect(message).toMatch(/^LookupError: network is "nope"/);
    expect(frame).toMatch(/node_modules\/@pegscope\/client\/dist\/index\.js:\d+:\d+\)$/);
    expect(packed.files.map((f) => f.path).filter((p) => p.endsWith('.map'))).toEqual([]);
  });

  it('import and require share one instance (no dual-package hazard)', () => {
    writeFileSync(join(consumer, 'both.mjs'), `import { createRequire } from 'node:module';
import { AmountError } from '@pegscope/client';
console.log(createRequire(import.meta.url)('@pegscope/client').AmountError === AmountError);
`);
    expect(execFileSync(process.execPath, ['both.mjs'], { cwd: consumer, encoding: 'utf8' }).trim()).toBe('true');
  });

  it.each([
    ['a browser bundle', { platform: 'browser', format: 'iife' }],
    // Metro's way: the react-native condition (the CommonJS build), then the main field.
    ['a React Native-style bundle (react-native condition, main field, no Node)', { platform: 'neutral', format: 'iife', mainFields: ['react-native', 'main'], conditions: ['react-native', 'require'] }],
  ] as [string, BuildOptions][])('%s, run with no Node globals', async (_name, options) => {
    writeFileSync(join(consumer, 'entry.js'), `${program("import * as client from '@pegscope/client';")}
globalThis.result = run(globalThis.table, globalThis.files);
`);
    const bundle = await build({ ...options, absWorkingDir: consumer, entryPoints: ['entry.js'], bundle: true, write: false, target: 'es2020', logLevel: 'silent' });
    const code = bundle.outputFiles[0]!.text;
    expect(code).not.toMatch(/\brequire\(["'`]|["'`]node:/);
    // Only what browsers and React Native's Hermes provide; process, Buffer, require and the like are absent.
    const context: Record<string, unknown> = { TextEncoder, table: TABLE, files: FILES };
    runInNewContext(code, context);
    expect(await (context.result as Promise<unknown>)).toEqual(EXPECTED);
  });
});

describe('types resolve without a cast', () => {
  const source = `import { parseAmountTable, privacyOf, parseCoinAmount, formatCoin, RangeClient, sha256, type AmountTable, type FollowDocument, type Privacy } from '@pegscope/client';
declare const fetched: unknown;
const { table, ageSeconds }: { table: AmountTable; ageSeconds: number } = parseAmountTable(fetched, { network: 'mainnet' });
const privacy: Privacy = privacyOf(table, parseCoinAmount('1.5'), 'pegin');
export const summary: string = formatCoin(table.pegin[0]![0]) + privacy.rating + String(ageSeconds + (privacy.suggested_amount ?? 0));
export const digest: Uint8Array = sha256(new Uint8Array(1));
export const client = new RangeClient({ base: 'https://mirror.example/', network: 'mainnet' });
// document() is typed by kind, from schemas/: no cast to read a trace.
export async function peginsOf(q: string): Promise<number> {
  const found = await client.document('trace', q);
  // @ts-expect-error: a trace document has no follow
  void found?.value.follow;
  const chain: FollowDocument | undefined = (await client.followChain(q))?.value;
  return (found?.value.trace.pegins.length ?? 0) + (chain?.follow.hops.length ?? 0);
}
// @ts-expect-error: not a network (fails as unused if the types came out as any)
parseAmountTable(fetched, { network: 'bitcoin' });
// @ts-expect-error: a side is pegin or pegout
privacyOf(table, 1, 'both');
`;
  const tsc = (bin: string, args: string[], file: string): string => {
    writeFileSync(join(consumer, file), source);
    try {
      return execFileSync(process.execPath, [join(ROOT, 'node_modules', bin), ...args, '--strict', '--noEmit', '--lib', 'es2022', file], { cwd: consumer, encoding: 'utf8' });
    } catch (err) {
      throw new Error(`tsc ${args.join(' ')} ${file}:\n${(err as { stdout?: string }).stdout ?? err}`);
    }
  };
  const TS7 = 'typescript/bin/tsc';
  // TypeScript 7 removed node10 resolution; TypeScript 5 still has it, as older wallet projects do.
  const TS5 = 'typescript-5/bin/tsc';

  it.each([
    ['node16, an ES module', TS7, ['--module', 'node16', '--moduleResolution', 'node16'], 'consumer.mts'],
    ['node16, a CommonJS module', TS7, ['--module', 'node16', '--moduleResolution', 'node16'], 'consumer.cts'],
    ['bundler', TS7, ['--module', 'esnext', '--moduleResolution', 'bundler'], 'consumer.ts'],
    ['node10 (TypeScript 5)', TS5, ['--module', 'commonjs', '--moduleResolution', 'node10'], 'consumer.ts'],
    ['node16 (TypeScript 5)', TS5, ['--module', 'node16', '--moduleResolution', 'node16'], 'consumer.mts'],
  ])('%s', (_name, bin, args, file) => {
    expect(tsc(bin, args, file)).toBe('');
  });

  it('a wrong use is an error (the check above can fail)', () => {
    writeFileSync(join(consumer, 'wrong.ts'), "import { privacyOf } from '@pegscope/client';\nprivacyOf({ tolerance: 1, pegin: [], pegout: [] }, '1.5');\n");
    expect(() => execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--strict', '--noEmit', '--module', 'esnext', '--moduleResolution', 'bundler', 'wrong.ts'], { cwd: consumer, encoding: 'utf8' }))
      .toThrow(expect.objectContaining({ stdout: expect.stringMatching(/not assignable to parameter of type 'number'/) }));
  });
});
