// Copies the .sql files and plain .mjs workers next to their compiled modules, so dist/ runs on its own.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function copyAssets(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) copyAssets(path);
    else if (entry.endsWith('.sql') || entry.endsWith('.mjs')) cpSync(path, join('dist', relative('src', path)));
  }
}
copyAssets('src');
