// Builds dist/esm (ES modules) and dist/cjs (CommonJS, marked by its own
// package.json) from the same sources with tsc, each with its declarations,
// so `import` and `require` both get code and types of their own format.
// tsc is the workspace root's (npm run puts it on the PATH).
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const config of ['tsconfig.esm.json', 'tsconfig.cjs.json']) {
  execFileSync('tsc', ['-p', join(root, config)], { stdio: 'inherit' });
}
writeFileSync(join(root, 'dist', 'cjs', 'package.json'), '{"type":"commonjs"}\n');
