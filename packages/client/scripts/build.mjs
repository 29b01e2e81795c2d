// Builds the package into dist/ (run by the root's `npm run build`):
//   <entry>.js     CommonJS, bundled and minified by esbuild: the one implementation
//                  (also the `react-native` condition: Metro reads it without .mjs support)
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
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const ENTRIES = ['index', 'sha256'];

rmSync(dist, { recursive: true, force: true });
// tsc from the PATH npm run sets up (the workspace root's TypeScript); it type-checks and writes the declarations.
execFileSync('tsc', ['-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
// The document types are declarations generated from schemas/ (scripts/gen-schemas.ts): tsc emits no .d.ts input, so it is copied.
copyFileSync(join(root, 'src', 'documents.d.ts'), join(dist, 'documents.d.ts'));
// keepNames: minified classes would otherwise be named by their minified
// identifier, so an AmountTableError printed as `A [Error]` and its `name`
// was 'Error'. No sourcemap is shipped: one adds about 27 KB to a package
// kept under 50 KB installed; the kept names already say where a stack frame is.
await build({
  absWorkingDir: root,
  entryPoints: [{ in: 'src/index.ts', out: 'index' }],
  outdir: dist,
  bundle: true, format: 'cjs', platform: 'neutral', target: 'es2020', minify: true, keepNames: true, logLevel: 'warning',
});
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
