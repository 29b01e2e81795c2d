/**
 * Programs that need their port up front (nginx, litecoind) are started again
 * on another port when theirs is taken, instead of racing a free-port check.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PortTakenError, randomPort, startOnSomePort } from '../scripts/lib/bind-retry.js';
import { nginxAvailable, startNginx } from '../scripts/lib/nginx.js';
import { nodeTestsEnabled, startRegtestNode } from '../scripts/lib/regtest.js';

/** A port this test holds for its whole run, so a program told to use it cannot bind it. */
let occupied: Server;
let takenPort = 0;
const work = mkdtempSync(join(tmpdir(), 'pegscope-bind-retry-'));

beforeAll(async () => {
  occupied = createServer();
  await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', resolve));
  takenPort = (occupied.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => occupied.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

/** The taken port first, then random ones; records every port tried. */
function takenFirst(): { choosePort: () => number; tried: number[] } {
  const tried: number[] = [];
  return { tried, choosePort: () => { const port = tried.length === 0 ? takenPort : randomPort(); tried.push(port); return port; } };
}

describe('startOnSomePort', () => {
  it('tries another port after PortTakenError and gives up after the last attempt', async () => {
    const tried: number[] = [];
    const ports = [1, 2, 3];
    await expect(startOnSomePort(async (port) => {
      tried.push(port);
      if (port < 3) throw new PortTakenError(port, 'taken');
      return port;
    }, { choosePort: () => ports.shift()! })).resolves.toBe(3);
    expect(tried).toEqual([1, 2, 3]);
    await expect(startOnSomePort(async (port) => { throw new PortTakenError(port, 'always taken'); }, { attempts: 2 })).rejects.toThrow(/always taken/);
  });

  it('does not retry any other failure', async () => {
    let calls = 0;
    await expect(startOnSomePort(async () => { calls++; throw new Error('bad config'); })).rejects.toThrow('bad config');
    expect(calls).toBe(1);
  });
});

describe.skipIf(!nginxAvailable())('nginx on a taken port', () => {
  it('reports "Address already in use", and is started again on another port that serves', async () => {
    const root = join(work, 'root');
    rmSync(root, { recursive: true, force: true });
    writeFileSync(join(work, 'snippet.conf'), 'location = /hello { return 200 "hello"; }\n');
    const ports = takenFirst();
    const nginx = await startNginx(join(work, 'nginx'), root, join(work, 'snippet.conf'), { choosePort: ports.choosePort });
    try {
      expect(ports.tried[0]).toBe(takenPort);
      expect(ports.tried.length).toBeGreaterThan(1);
      expect(nginx.port).toBe(ports.tried.at(-1));
      expect(await (await fetch(`${nginx.url}/hello`)).text()).toBe('hello');
    } finally {
      await nginx.stop();
    }
  }, 30_000);
});

describe.skipIf(!nodeTestsEnabled())('litecoind on a taken RPC port', () => {
  it('reports it cannot bind, and is started again on another port whose RPC answers', async () => {
    const ports = takenFirst();
    const node = await startRegtestNode({ fundMiner: false, choosePort: ports.choosePort });
    try {
      expect(ports.tried[0]).toBe(takenPort);
      expect(node.rpcPort).toBe(ports.tried.at(-1));
      expect(node.rpcPort).not.toBe(takenPort);
      expect(await node.rpc('getblockcount')).toBe(0);
    } finally {
      await node.stop();
    }
  }, 90_000);
});
