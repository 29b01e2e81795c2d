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
// keepNames: minified classes would otherwise be named by their minified
// identifier, so an AmountTableError printed as `A [Error]` and its `name`
// was 'Error'. The sourcemap names the source line of each stack frame
// (`node --enable-source-maps`, a bundler's devtools) and must fit the 53 KB
// installed budget: esbuild's own map of this bundle is 26 KB without the
// sources (the package does not ship src/), so it is cut to line granularity
// (lineMap: 4 KB) and the declarations lose what no editor shows (tidyDeclarations).
const bundled = await build({
  absWorkingDir: root,
  entryPoints: [{ in: 'src/index.ts', out: 'index' }],
  outdir: dist, write: false,
  bundle: true, format: 'cjs', platform: 'neutral', target: 'es2020', minify: true, keepNames: true, logLevel: 'warning',
  sourcemap: 'linked', sourcesContent: false,
});
for (const file of bundled.outputFiles) {
  writeFileSync(file.path, file.path.endsWith('.map') ? JSON.stringify(lineMap(JSON.parse(file.text))) : file.contents);
}
for (const name of readdirSync(dist).filter((n) => n.endsWith('.d.ts'))) {
  writeFileSync(join(dist, name), tidyDeclarations(readFileSync(join(dist, name), 'utf8')));
}
// The names src/sha256.ts exports: an ES module build's metafile lists them (a CommonJS one does not).
const listed = await build({ absWorkingDir: root, entryPoints: ['src/sha256.ts'], bundle: true, format: 'esm', write: false, metafile: true, outdir: dist, logLevel: 'warning' });
const hashNames = Object.values(listed.metafile.outputs)[0].exports;
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
 * size. Names are dropped (keepNames already keeps the functions' own).
 */
function lineMap(map) {
  const fields = [0, 0, 0, 0]; // generated column, source, line, column: the deltas' running values
  const kept = [0, 0, 0];
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
      previous = place;
      segments.push(encodeVlq([fields[0] - previousColumn, fields[1] - kept[0], fields[2] - kept[1], -kept[2]]));
      previousColumn = fields[0];
      [kept[0], kept[1], kept[2]] = [fields[1], fields[2], 0];
    }
    return segments.join(',');
  });
  // The sources are ../src/*.ts from dist/: one sourceRoot instead of a prefix on each.
  return { version: 3, sourceRoot: '../src/', sources: map.sources.map((source) => source.replace(/^\.\.\/src\//, '')), names: [], mappings: lines.join(';') };
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
