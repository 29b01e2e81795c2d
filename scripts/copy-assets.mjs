// Copies the .sql files next to their compiled modules, so dist/ runs on its own.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function copySql(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) copySql(path);
    else if (entry.endsWith('.sql')) cpSync(path, join('dist', relative('src', path)));
  }
}
copySql('src');
