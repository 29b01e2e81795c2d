import { createServer, type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
  afterEach(() => { vi.unstubAllEnvs(); });

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
    vi.stubEnv('LTC_RPC_URL', undefined);
    const { code, stderr } = await run(['scan', '--source', 'rpc', '--network', 'regtest', '--db', ':memory:']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--source rpc needs a node: give --rpc-url/);
  });

  it.each([
    [['scan', '--network', 'regtest', '--rpc-url', 'ftp://127.0.0.1:9332'], '--rpc-url must be an http:// or https:// URL, got ftp://…'],
    [['scan', '--network', 'regtest', '--rpc-url', 'notaurl'], '--rpc-url is not a URL: "notaurl"'],
    [['job', '--network', 'regtest', '--rpc-url', 'http//u:secret@127.0.0.1:9332'], '--rpc-url is not a URL: "http//…@127.0.0.1:9332"'],
    [['serve', '--port', '99999'], '--port must be a whole number from 0 to 65535, got "99999"'],
    [['demo', '--port', '65536'], '--port must be a whole number from 0 to 65535, got "65536"'],
    [['serve', '--rate-limit', '99999999'], '--rate-limit must be a whole number from 0 to 1000000, got "99999999"'],
    [['scan', '--to', '99999999999'], '--to must be a whole number from 0 to 2147483647, got "99999999999"'],
    [['scan', '--seed', '4294967296'], '--seed must be a whole number from 0 to 4294967295, got "4294967296"'],
    [['export', '--keep', '0'], '--keep must be a whole number from 1 to 1000, got "0"'],
    [['analyze', '--memory-limit', '100'], '--memory-limit must be a whole number from 256 to 1048576, got "100"'],
    [['job', '--memory-limit', '2GB'], '--memory-limit must be a whole number from 256 to 1048576, got "2GB"'],
    [['job', '--every', '1000h', '--db', ':memory:'], '--every: duration "1000h" is too long; at most 596h'],
    [['export', '--site-url', 'ftp://pegscope.example/'], '--site-url must be an http:// or https:// URL without user, query or fragment'],
    [['job', '--every', '5 minutes', '--db', ':memory:'], '--every: "5 minutes" is not a duration'],
  ])('a bad flag value is a usage error (exit 2) naming the flag: %j', async (args, message) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    // Two lines: what was wrong, and where the usage is.
    expect(stderr).toContain(`pegscope ${args[0]}: ${message}`);
    expect(stderr).toContain(`\nrun \`pegscope ${args[0]} --help\` for usage\n`);
    expect(stderr).not.toContain('secret');
    expect(stderr).not.toMatch(/RangeError|ERR_/);
  });

  it.each([
    ['LTC_RPC_URL', 'ftp://127.0.0.1:9332', ['scan', '--network', 'regtest'], 'LTC_RPC_URL must be an http:// or https:// URL'],
    ['PEGSCOPE_PORT', '99999', ['serve'], 'PEGSCOPE_PORT must be a whole number from 0 to 65535, got "99999"'],
    ['PEGSCOPE_RPC_BATCH', 'lots', ['scan', '--network', 'regtest', '--rpc-url', 'http://127.0.0.1:9332'], 'PEGSCOPE_RPC_BATCH must be a whole number from 1 to 10000, got "lots"'],
  ])('a bad %s is a usage error naming the variable', async (name, value, args, message) => {
    vi.stubEnv(name, value);
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toContain(`pegscope ${args[0]}: ${message}`);
    expect(stderr).toContain(`\nrun \`pegscope ${args[0]} --help\` for usage\n`);
  });

  it.each([
    [['analyze']], [['export']], [['labels', 'import', 'labels.csv']],
  ])('%j refuses a database that does not exist instead of creating an empty one', async (args) => {
    const db = join(mkdtempSync(join(tmpdir(), 'pegscope-cli-')), 'typo', 'sim.duckdb');
    const { code, stderr } = await run([...args, '--db', db]);
    expect(code).toBe(2);
    const name = ['pegscope', ...args.filter((word) => !word.includes('.'))].join(' ');
    expect(stderr).toContain(`${name}: database ${db} does not exist; run \`pegscope scan --network sim\` (or \`pegscope job\`) first, which creates it, or give --db the file scan wrote`);
    expect(existsSync(db)).toBe(false);
  });
});

describe('pegscope analyze', () => {
  it('continues the published analysis, and --full recomputes every peg', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'pegscope-cli-')), 'sim.duckdb');
    expect((await run(['scan', '--source', 'sim', '--preset', 'tiny', '--to', '1500', '--db', db])).code).toBe(0);
    const analyze = async (...flags: string[]): Promise<string> => {
      const { code, stderr, stdout } = await run(['analyze', '--db', db, '--horizon', '100', ...flags]);
      expect(code).toBe(0);
      return stderr + stdout;
    };
    expect(await analyze()).toContain('analyze: every peg');
    expect(await analyze()).toContain('analyze: continuing the analysis at height 1500: links of peg-outs from height 1402, anonymity sets of peg-ins from height 1501');
    expect(await analyze('--full')).toContain('analyze: every peg');
    // A chain younger than the horizon: the links start below its first block, which the log calls every peg-out.
    expect(await analyze('--horizon', '20000')).toContain('analyze: every peg');
    const young = await analyze('--horizon', '20000');
    expect(young).toContain('analyze: continuing the analysis at height 1500: links of every peg-out, anonymity sets of peg-ins from height 1501');
    expect(young).not.toMatch(/height -/);
  }, 60_000);
});

describe('pegscope CLI with a node that is not what it should be', () => {
  const servers: { close(): void }[] = [];
  afterEach(() => { while (servers.length) servers.pop()!.close(); });

  /** A loopback server answering every request with `reply`; returns its URL. */
  async function server(reply: (res: ServerResponse) => void): Promise<string> {
    const s = createServer((req, res) => { req.resume(); req.on('end', () => reply(res)); });
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => { s.closeAllConnections(); s.close(); } });
    return `http://127.0.0.1:${(s.address() as { port: number }).port}`;
  }

  const scanAgainst = (url: string) => run(['scan', '--network', 'regtest', '--rpc-url', url, '--rpc-user', 'u', '--rpc-password', 'p',
    '--db', join(mkdtempSync(join(tmpdir(), 'pegscope-cli-')), 'regtest.duckdb')]);

  it('an HTML page from a proxy is one line saying it is not a Litecoin Core JSON-RPC answer, with status and content type', async () => {
    const url = await server((res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end(`<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n${'<p>upstream gone</p>\n'.repeat(300)}</body>\n</html>\n`);
    });
    const { code, stderr } = await scanAgainst(url);
    expect(code).toBe(1);
    expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(stderr).toMatch(new RegExp(`^pegscope: the server at ${url.replace(/\./g, '\\.')} is not a Litecoin Core JSON-RPC server: `
      + 'it answered getblockchaininfo with HTTP 502 \\(text/html\\) and a body that is not JSON: "<html> <head><title>502 Bad Gateway</title></head> <body>'));
    expect(stderr.length).toBeLessThan(600);
  });

  it('control characters a node sends reach the terminal escaped', async () => {
    const url = await server((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ id: 0, result: null, error: { code: -1, message: '\u001b]0;owned\u0007\u001b[2J\u202ebad\nline' } }]));
    });
    const { code, stderr } = await scanAgainst(url);
    expect(code).toBe(1);
    expect(stderr).toBe('pegscope: node answered getblockchaininfo with error -1: \\x1b]0;owned\\x07\\x1b[2J\\u{202e}bad line\n');
  });

  it('a chain name with escape sequences is escaped in the network mismatch message', async () => {
    const s = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      req.on('end', () => {
        const [call] = JSON.parse(body) as { id: number; method: string }[];
        const result = call!.method === 'getindexinfo'
          ? { txindex: { synced: true, best_block_height: 1 } }
          : { chain: '\u001b[31mmain', blocks: 1, headers: 1, initialblockdownload: false, softforks: { mweb: { height: 1 } } };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify([{ id: call!.id, error: null, result }]));
      });
    });
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => { s.closeAllConnections(); s.close(); } });
    const { code, stderr } = await scanAgainst(`http://127.0.0.1:${(s.address() as { port: number }).port}`);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^pegscope: the node is on chain "\\x1b\[31mmain" but --network is regtest/);
  });
});
