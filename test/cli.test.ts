import { describe, expect, it, vi } from 'vitest';
import { main } from '../src/cli.js';

async function run(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  let stderr = '', stdout = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => { stderr += String(chunk); return true; });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => { stdout += String(chunk); return true; });
  try {
    const code = await main(args);
    return { code, stderr, stdout };
  } finally {
    err.mockRestore();
    out.mockRestore();
    process.exitCode = undefined;
  }
}

describe('pegscope CLI', () => {
  it.each(['scan', 'analyze', 'export', 'job', 'serve', 'demo', 'labels', 'verify'])('%s --help exits 0 and describes the command', async (command) => {
    const { code, stdout } = await run([command, '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Usage: pegscope/);
  });

  it('exits 2 with the allowed values for an unknown network', async () => {
    const { code, stderr } = await run(['analyze', '--network', 'bitcoin', '--db', ':memory:']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown network "bitcoin"; allowed: mainnet, testnet, regtest, sim/);
  });

  it('exits 2 for an unknown command or a bad flag value', async () => {
    expect((await run(['frobnicate'])).code).toBe(2);
    const bad = await run(['scan', '--preset', 'huge']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are tiny, demo, mainnet, x10/);
    expect((await run(['serve', '--port', 'eighty'])).code).toBe(2);
  });

  it('exits 2 when --source rpc has no node configured, saying what to give', async () => {
    const saved = process.env.LTC_RPC_URL;
    delete process.env.LTC_RPC_URL;
    const { code, stderr } = await run(['scan', '--source', 'rpc', '--network', 'regtest', '--db', ':memory:']);
    if (saved !== undefined) process.env.LTC_RPC_URL = saved;
    expect(code).toBe(2);
    expect(stderr).toMatch(/--source rpc needs a node: give --rpc-url/);
  });
});
