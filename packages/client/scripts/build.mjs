// Builds the package into dist/ (run by the root's `npm run build`):
//   index.js       CommonJS, bundled and minified by esbuild: the one implementation
//                  (also the `react-native` condition: Metro reads it without .mjs support)
//   index.mjs      the ES module entry: `export *` of index.js, so `import` and
//                  `require` share one instance (no dual-package hazard) and the
//                  install stays small; Node finds index.js's names by reading its
//                  `module.exports={…}` (checked below), bundlers at run time
//   index.d.ts     the declarations with their doc comments, in one file (tsc;
//                  documents.d.ts as generated from schemas/ by scripts/gen-schemas.ts),
//                  and index.d.mts re-exporting them for `import`
// One entry: the pipeline imports its SHA-256 from the package's main entry too.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
// tsc from the PATH npm run sets up (the workspace root's TypeScript); it type-checks and writes the declarations.
execFileSync('tsc', ['-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
// The document types are declarations generated from schemas/ (scripts/gen-schemas.ts): tsc emits no .d.ts input, so it is copied.
copyFileSync(join(root, 'src', 'documents.d.ts'), join(dist, 'documents.d.ts'));
// What fits the 60 KB installed budget (test/client-package.test.ts) with the
// least loss for a wallet: no keepNames (a tenth of the bundle), so a stack
// frame's function has its minified name, but the error classes are named in
// src/index.ts and an error prints as `AmountTableError: …`; no source map
// (a line-level one was 5 KB, a tenth of the install): the error messages say
// what failed and where. The declarations lose what no editor shows (tidyDeclarations).
const bundled = await build({
  absWorkingDir: root,
  entryPoints: ['src/index.ts'],
  write: false,
  bundle: true, format: 'esm', platform: 'neutral', target: 'es2020', minify: true, logLevel: 'warning',
});
writeFileSync(join(dist, 'index.js'), commonJs(bundled.outputFiles[0].text));
// One declaration file, dist/index.d.ts (bundleDeclarations).
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
writeFileSync(join(dist, 'index.mjs'), "export * from './index.js';\n");
writeFileSync(join(dist, 'index.d.mts'), "export * from './index.js';\n");
const names = Object.keys(createRequire(join(dist, 'index.js'))('./index.js'));
const esm = await import(pathToFileURL(join(dist, 'index.mjs')).href);
const missing = names.filter((name) => !(name in esm));
if (missing.length > 0) throw new Error(`index.mjs does not re-export ${missing.join(', ')}: Node did not find them in index.js's module.exports`);


/**
 * An ES module bundle as CommonJS: its one `export{a as b,…}` becomes
 * `module.exports={b:a,…}`, smaller than esbuild's CommonJS output (a getter
 * per export and the helpers that define them). Nothing it exports is
 * reassigned, so values are as good as live bindings.
 */
function commonJs(code) {
  const statements = [...code.matchAll(/export\{([^}]*)\};?/g)];
  if (statements.length !== 1 || /^import[\s{*]|\bimport\.meta\b/m.test(code)) throw new Error('the bundle is not one export statement away from CommonJS');
  const [statement, list] = statements[0];
  const members = list.split(',').map((item) => {
    const [local, name = local] = item.split(' as ');
    return `${name}:${local}`;
  });
  return `"use strict";${code.replace(statement, `module.exports={${members.join(',')}};`)}`;
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
 * use stay, each on one line (an editor shows the same text), without their
 * `@remarks` (the why, for whoever reads the source); a file's opening
 * comment (attached to no export) and private members go (no editor lists
 * them), and indentation is one tab a level instead of four (tsc) or two
 * (documents.d.ts) spaces.
 */
function tidyDeclarations(text) {
  return text
    .replace(/^(?:\/\/.*\n\n|\/\*\*[\s\S]*?\*\/\n)(?=import|export|\/\*\*)/, '')
    .replace(/^(?: *\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n)? *private (?:readonly )?[\w$]+;\n/gm, '')
    .replace(/\/\*\*\n(?:\s*\* .*\n)+\s*\*\//g, (comment) => `/** ${comment.split('\n').slice(1, -1).map((line) => line.replace(/^\s*\* /, '')).join(' ')} */`)
    .replace(/\s*@remarks\b[\s\S]*?\*\//g, ' */')
    .replace(/^(?: {4})+/gm, (indent) => '\t'.repeat(indent.length / 4))
    .replace(/^(?: {2})+/gm, (indent) => '\t'.repeat(indent.length / 2));
}
