import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli.js';

/** The README's "## The CLI" section, up to the next section of the same level. */
function readmeCliSection(): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  return readme.split('\n## The CLI\n')[1]?.split('\n## ')[0] ?? '';
}

/** Every leaf command with its full name (`labels import`). */
function leafCommands(cmd: Command, prefix = ''): { name: string; cmd: Command }[] {
  return cmd.commands.flatMap((sub) => {
    const name = `${prefix}${sub.name()}`;
    return sub.commands.length > 0 ? leafCommands(sub, `${name} `) : [{ name, cmd: sub }];
  });
}

describe('README "The CLI"', () => {
  const section = readmeCliSection();
  const commands = leafCommands(buildProgram());

  it('lists every command the program has', () => {
    expect(commands.length).toBeGreaterThan(5);
    for (const { name } of commands) expect(section, name).toContain(`npx pegscope ${name}`);
    expect(section).toContain('npx pegscope --version');
  });

  it('names every long flag of every command', () => {
    for (const { name, cmd } of commands) {
      for (const option of cmd.options) {
        if (option.long && option.long !== '--help') expect(section, `${name} ${option.long}`).toContain(option.long);
      }
    }
  });
});
