import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

describe('pegscope --version', () => {
  it.each(['--version', '-V'])('%s prints the version of package.json, run from src/ as a process', (flag) => {
    const stdout = execFileSync(process.execPath, ['--import', 'tsx', 'src/bin.ts', flag], { cwd: REPO, encoding: 'utf8' });
    expect(stdout).toBe(`${version}\n`);
  });
});
