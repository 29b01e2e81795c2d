import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDemo } from '../src/demo.js';

/** `npm start` (pegscope demo), on the tiny preset in a directory of its own. */
const dir = mkdtempSync(join(tmpdir(), 'pegscope-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function occupiedPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe('pegscope demo', () => {
  it('fails at once on a busy port, before the job scans or publishes anything', async () => {
    const { server, port } = await occupiedPort();
    const lines: string[] = [];
    const db = join(dir, 'busy.duckdb');
    try {
      await expect(startDemo({ host: '127.0.0.1', port, db, out: join(dir, 'busy-out'), preset: 'tiny', log: (l) => lines.push(l), print: () => undefined }))
        .rejects.toThrow(`port ${port} on 127.0.0.1 is in use (EADDRINUSE): stop what listens there, or choose another port with --port N or PEGSCOPE_PORT=N`);
    } finally {
      server.close();
    }
    expect(lines).toEqual([]);
    expect(existsSync(db)).toBe(false);
    expect(existsSync(join(dir, 'busy-out'))).toBe(false);
  });

  it('prints examples that answer, and a follow example that follows at least one hop', async () => {
    let printed = '';
    const server = await startDemo({
      host: '127.0.0.1', port: 0, db: join(dir, 'sim.duckdb'), out: join(dir, 'out'), preset: 'tiny', log: () => undefined,
      print: (text) => { printed += text; },
    });
    try {
      const urls = [...printed.matchAll(/curl '([^']+)'/g)].map((m) => m[1]!);
      expect(urls.map((url) => new URL(url).pathname)).toEqual(['/api/stats', '/api/privacy', '/api/links', '/api/trace', '/api/follow']);
      for (const url of urls) expect((await fetch(url)).status, url).toBe(200);
      const follow = await (await fetch(urls.at(-1)!)).json() as { follow: { hops: unknown[] } };
      expect(follow.follow.hops.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  }, 180_000);
});
