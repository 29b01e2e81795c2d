// Builds the package into dist/ (run by the root's `npm run build`):
//   <entry>.js     CommonJS, bundled and minified by esbuild: the one implementation
//                  (also the `react-native` condition: Metro reads it without .mjs support),
//                  with index.js.map: a line-level source map to ../src/ (sources not shipped)
//   <entry>.mjs    the ES module entry: re-exports <entry>.js by name, so `import`
//                  and `require` share one instance (no dual-package hazard) and
//                  the install stays small
//   *.d.ts         declarations with their doc comments (tsc; documents.d.ts as generated
//                  from schemas/ by scripts/gen-schemas.ts), and <entry>.d.mts
//                  re-exporting them for `import`
// Entries: index (the package) and sha256 (the pipeline's hash, `@pegscope/client/sha256`).
// index bundles the hash too (range keys are sha256 prefixes), so sha256.js
// re-exports it from index.js instead of bundling a second copy.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const ENTRIES = ['index', 'sha256'];
/** The digits of a source map's base64 VLQ numbers. */
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

rmSync(dist, { recursive: true, force: true });
// tsc from the PATH npm run sets up (the workspace root's TypeScript); it type-checks and writes the declarations.
execFileSync('tsc', ['-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
// The document types are declarations generated from schemas/ (scripts/gen-schemas.ts): tsc emits no .d.ts input, so it is copied.
copyFileSync(join(root, 'src', 'documents.d.ts'), join(dist, 'documents.d.ts'));
// No keepNames (it costs a tenth of the bundle): a stack frame's function has
// its minified name, and the source map gives its file and line; the error
// classes are named in src/index.ts, so an error still prints as
// `AmountTableError: …`. The sourcemap names the source line of each stack frame
// (`node --enable-source-maps`, a bundler's devtools) and must fit the 60 KB
// installed budget: esbuild's own map of this bundle is 26 KB without the
// sources (the package does not ship src/), so it is cut to line granularity
// (lineMap: 4 KB) and the declarations lose what no editor shows (tidyDeclarations).
const bundled = await build({
  absWorkingDir: root,
  entryPoints: [{ in: 'src/index.ts', out: 'index' }],
  outdir: dist, write: false,
  bundle: true, format: 'cjs', platform: 'neutral', target: 'es2020', minify: true, logLevel: 'warning',
  sourcemap: 'linked', sourcesContent: false,
});
for (const file of bundled.outputFiles) {
  writeFileSync(file.path, file.path.endsWith('.map') ? JSON.stringify(lineMap(JSON.parse(file.text))) : file.contents);
}
// One declaration file, dist/index.d.ts (bundleDeclarations); sha256.d.ts re-exports its part.
// Declarations no entry reaches (a module only the bundle uses, such as ed25519.ts) are not shipped.
const reached = new Set();
const reach = (name) => {
  if (reached.has(name)) return;
  reached.add(name);
  for (const [, spec] of readFileSync(join(dist, name), 'utf8').matchAll(/from '\.\/([\w-]+)\.js'/g)) reach(`${spec}.d.ts`);
};
reach('index.d.ts');
const declarations = bundleDeclarations(readFileSync(join(dist, 'index.d.ts'), 'utf8'),
  [...reached].filter((name) => name !== 'index.d.ts').sort().map((name) => tidyDeclarations(readFileSync(join(dist, name), 'utf8'))));
for (const name of readdirSync(dist).filter((n) => n.endsWith('.d.ts'))) rmSync(join(dist, name));
writeFileSync(join(dist, 'index.d.ts'), declarations);
// The names src/sha256.ts exports: an ES module build's metafile lists them (a CommonJS one does not).
const listed = await build({ absWorkingDir: root, entryPoints: ['src/sha256.ts'], bundle: true, format: 'esm', write: false, metafile: true, outdir: dist, logLevel: 'warning' });
const hashNames = Object.values(listed.metafile.outputs)[0].exports;
writeFileSync(join(dist, 'sha256.d.ts'), `export { ${hashNames.join(', ')} } from './index.js';\n`);
writeFileSync(join(dist, 'sha256.js'), `"use strict";const m=require("./index.js");module.exports={${hashNames.map((n) => `${n}:m.${n}`).join(',')}};\n`);
const require = createRequire(join(dist, 'index.js'));
for (const name of ENTRIES) {
  const names = Object.keys(require(`./${name}.js`)).sort();
  writeFileSync(join(dist, `${name}.mjs`), `import m from './${name}.js';\nexport const { ${names.join(', ')} } = m;\n`);
  writeFileSync(join(dist, `${name}.d.mts`), `export * from './${name}.js';\n`);
}

/**
 * A source map with one segment where the original line changes: a stack
 * frame still resolves to its file and line (column 1), at a sixth of the
 * size. Names are dropped.
 */
function lineMap(map) {
  const fields = [0, 0, 0, 0]; // generated column, source, line, column: the deltas' running values
  const kept = [0, 0, 0];
  // Only the package's own sources: a bundled dependency's lines (node_modules/) are not mapped, nor listed.
  const ours = map.sources.map((source) => source.startsWith('../src/'));
  const index = map.sources.map((_, i) => ours.slice(0, i).filter(Boolean).length);
  const lines = map.mappings.split(';').map((line) => {
    fields[0] = 0;
    let previousColumn = 0;
    let previous = '';
    const segments = [];
    for (const segment of line ? line.split(',') : []) {
      const values = decodeVlq(segment);
      for (let i = 0; i < Math.min(values.length, 4); i++) fields[i] += values[i];
      const place = `${fields[1]}:${fields[2]}`;
      if (values.length < 4 || place === previous) continue;
      if (!ours[fields[1]]) {
        // A segment without a source: the dependency's code maps to nothing rather than to the line before it.
        if (previous !== 'dependency') {
          segments.push(encodeVlq([fields[0] - previousColumn]));
          previousColumn = fields[0];
        }
        previous = 'dependency';
        continue;
      }
      previous = place;
      segments.push(encodeVlq([fields[0] - previousColumn, index[fields[1]] - kept[0], fields[2] - kept[1], -kept[2]]));
      previousColumn = fields[0];
      [kept[0], kept[1], kept[2]] = [index[fields[1]], fields[2], 0];
    }
    return segments.join(',');
  });
  // The sources are ../src/*.ts from dist/: one sourceRoot instead of a prefix on each.
  return { version: 3, sourceRoot: '../src/', sources: map.sources.filter((_, i) => ours[i]).map((source) => source.replace(/^\.\.\/src\//, '')), names: [], mappings: lines.join(';') };
}

function decodeVlq(text) {
  const values = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) * 2 ** shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value - 1) / 2 : value / 2);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

function encodeVlq(values) {
  let text = '';
  for (const n of values) {
    let value = n < 0 ? -n * 2 + 1 : n * 2;
    do {
      const digit = value % 32;
      value = Math.floor(value / 32);
      text += BASE64[value > 0 ? digit | 32 : digit];
    } while (value > 0);
  }
  return text;
}

/**
 * The modules' declarations as one file, exported as `index` (tsc's
 * index.d.ts, re-exports only) exports them: the rest is declared but not
 * exported, as in the modules. Saves the import and re-export lines and
 * `declare` on what is exported (implied in a declaration file).
 */
function bundleDeclarations(index, modules) {
  const exported = new Set();
  for (const [, names] of index.matchAll(/^export (?:type )?\{([^}]*)\} from '\.\/[\w-]+\.js';$/gm)) {
    for (const name of names.split(',').map((n) => n.trim().replace(/^type /, '')).filter(Boolean)) exported.add(name);
  }
  if (index.replace(/^export (?:type )?\{[^}]*\} from '\.\/[\w-]+\.js';\n/gm, '').trim()) throw new Error('index.d.ts holds more than re-exports');
  const declared = new Map();
  const text = modules.map((module) => module
    .replace(/^import .* from '\.\/[\w-]+\.js';\n/gm, '')
    .replace(/^export (declare )?(function|const|class|interface|type) (\w+)/gm, (_, _declare, kind, name) => {
      declared.set(name, (declared.get(name) ?? 0) + (kind === 'function' ? 0 : 1));
      if (exported.has(name)) return `export ${kind} ${name}`;
      return kind === 'interface' || kind === 'type' ? `${kind} ${name}` : `declare ${kind} ${name}`;
    })).join('\n');
  if (/\bimport\(|^import |^export (?:\*|\{)/m.test(text)) throw new Error('a declaration file imports or re-exports in a way bundleDeclarations does not read');
  for (const name of exported) if (!declared.has(name)) throw new Error(`index exports ${name}, which no module declares`);
  for (const [name, count] of declared) if (count > 1) throw new Error(`${name} is declared by more than one module`);
  return text;
}

/**
 * Declarations as an editor reads them: the doc comments of what a wallet can
 * use stay, each on one line (an editor shows the same text); a file's opening
 * comment (attached to no export) and those of private members go, and
 * indentation is one tab a level instead of four (tsc) or two (documents.d.ts) spaces.
 */
function tidyDeclarations(text) {
  return text
    .replace(/^(?:\/\/.*\n\n|\/\*\*[\s\S]*?\*\/\n)(?=import|export|\/\*\*)/, '')
    .replace(/^ *\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n(?= *private )/gm, '')
    .replace(/\/\*\*\n(?:\s*\* .*\n)+\s*\*\//g, (comment) => `/** ${comment.split('\n').slice(1, -1).map((line) => line.replace(/^\s*\* /, '')).join(' ')} */`)
    .replace(/^(?: {4})+/gm, (indent) => '\t'.repeat(indent.length / 4))
    .replace(/^(?: {2})+/gm, (indent) => '\t'.repeat(indent.length / 2));
}
