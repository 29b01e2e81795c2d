/**
 * The RPC client (src/chain/rpc.ts) against small fake JSON-RPC servers on
 * loopback: batching, retries (and none for permanent failures), cookie
 * refresh, error mapping and the answer cap.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerTooLargeError, NodeAuthError, NodeSyncingError, NodeUnreachableError, NotJsonRpcError, RpcCallError, TxIndexMissingError } from '../src/chain/errors.js';
import { RpcClient, type RpcOptions } from '../src/chain/rpc.js';
import { UsageError, type RpcConfig } from '../src/config.js';
import { REFUSED_URL } from './helpers/net.js';

interface JsonRpcRequest { id: number; method: string; params: unknown[] }
interface Seen { authorization: string; calls: JsonRpcRequest[] }
type Handler = (calls: JsonRpcRequest[], res: ServerResponse, req: IncomingMessage, n: number) => void | Promise<void>;

interface FakeNode { url: string; seen: Seen[]; maxInFlight: number; close(): Promise<void> }

const servers: FakeNode[] = [];
afterEach(async () => { while (servers.length) await servers.pop()!.close(); });

/** A loopback HTTP server that hands every parsed batch to `handler`; `seen` lists what arrived. */
async function fakeNode(handler: Handler): Promise<FakeNode> {
  const seen: Seen[] = [];
  let inFlight = 0;
  const node: FakeNode = { url: '', seen, maxInFlight: 0, close: async () => undefined };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    // A handler that throws is an unhandled rejection, which vitest reports as a failure.
    req.on('end', () => void (async () => {
      const calls = JSON.parse(body) as JsonRpcRequest[];
      seen.push({ authorization: req.headers.authorization ?? '', calls });
      inFlight++;
      node.maxInFlight = Math.max(node.maxInFlight, inFlight);
      res.on('close', () => { inFlight--; });
      await handler(calls, res, req, seen.length);
    })());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  node.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  node.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  servers.push(node);
  return node;
}

const json = (res: ServerResponse, status: number, value: unknown, type = 'application/json') => {
  res.writeHead(status, { 'content-type': type });
  res.end(typeof value === 'string' ? value : JSON.stringify(value));
};
/** Each call answered with `result(call)`. */
const answer = (res: ServerResponse, calls: JsonRpcRequest[], result: (call: JsonRpcRequest) => unknown) =>
  json(res, 200, calls.map((c) => ({ id: c.id, result: result(c), error: null })));
const rpcError = (res: ServerResponse, calls: JsonRpcRequest[], code: number, message: string) =>
  json(res, 200, calls.map((c) => ({ id: c.id, result: null, error: { code, message } })));

function client(url: string, config: Partial<RpcConfig> = {}, opts: RpcOptions = { retries: 3, backoffMs: 5 }): RpcClient {
  return new RpcClient({ url, user: 'u', password: 'p', timeoutMs: 5_000, batchSize: 50, concurrency: 4, ...config }, opts);
}

const blockCalls = (n: number) => Array.from({ length: n }, (_, i) => ({ method: 'getblockhash', params: [i] }));

describe('batching', () => {
  it('groups calls into batches of the configured size and matches answers by id, whatever their order', async () => {
    const node = await fakeNode((calls, res) => json(res, 200, [...calls].reverse().map((c) => ({ id: c.id, result: `hash-${String(c.params[0])}`, error: null }))));
    const results = await client(node.url, { batchSize: 3 }).batch<string>(blockCalls(7));
    expect(results).toEqual(Array.from({ length: 7 }, (_, i) => `hash-${i}`));
    expect(node.seen.map((s) => s.calls.map((c) => c.params[0])).sort()).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(node.seen.every((s) => s.calls.every((c, i) => c.id === i))).toBe(true);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const node = await fakeNode(async (calls, res) => {
      await new Promise((r) => setTimeout(r, 30));
      answer(res, calls, () => 1);
    });
    await client(node.url, { batchSize: 1, concurrency: 2 }).batch(blockCalls(8));
    expect(node.seen).toHaveLength(8);
    expect(node.maxInFlight).toBe(2);
  });

  it('a batch the node answers only in part is an error, not holes in the results', async () => {
    const node = await fakeNode((calls, res) => answer(res, calls.slice(1), () => 'x'));
    const err = await client(node.url).batch(blockCalls(3)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotJsonRpcError);
    expect((err as Error).message).toMatch(/answered getblockhash ×3 with HTTP 200 \(application\/json\) and replies to 2 of 3 calls/);
  });
});

describe('retries', () => {
  it('retries a full work queue (HTTP 503) and a node warming up (-28), then succeeds', async () => {
    const node = await fakeNode((calls, res, _req, n) => {
      if (n === 1) return json(res, 503, 'Work queue depth exceeded', 'text/plain');
      if (n === 2) return rpcError(res, calls, -28, 'Loading block index...');
      return answer(res, calls, () => 7);
    });
    expect(await client(node.url).call('getblockcount')).toBe(7);
    expect(node.seen).toHaveLength(3);
  });

  it('retries a connection the node drops, then succeeds', async () => {
    const node = await fakeNode((calls, res, req, n) => (n === 1 ? void req.socket.destroy() : answer(res, calls, () => 'ok')));
    expect(await client(node.url).call('getblockcount')).toBe('ok');
    expect(node.seen).toHaveLength(2);
  });

  it('gives up after the configured retries with how many attempts it made', async () => {
    const url = REFUSED_URL;
    await expect(client(url, {}, { retries: 2, backoffMs: 5 }).call('getblockcount'))
      .rejects.toThrow(new RegExp(`cannot reach the Litecoin node at ${url.replace(/\./g, '\\.')} \\(ECONNREFUSED\\) after 3 attempts`));
    const busy = await fakeNode((calls, res) => rpcError(res, calls, -28, 'Loading block index...'));
    const err = await client(busy.url, {}, { retries: 2, backoffMs: 5 }).call('getblockcount').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeSyncingError);
    expect((err as Error).message).toMatch(/stays busy: node warming up: Loading block index\.\.\.; try again/);
    expect(busy.seen).toHaveLength(3);
  });

  it.each([
    ['wrong user/password (401)', (res: ServerResponse) => json(res, 401, ''), NodeAuthError, /rejected the RPC user\/password \(HTTP 401\)/],
    ['forbidden (403)', (res: ServerResponse) => json(res, 403, ''), NodeAuthError, /\(HTTP 403\)/],
    ['wrong path (404)', (res: ServerResponse) => json(res, 404, '', 'text/plain'), NotJsonRpcError, /HTTP 404 .*litecoind serves it at \/ on its RPC port; check the path of --rpc-url/],
    ['method not found (-32601)', (res: ServerResponse, calls: JsonRpcRequest[]) => rpcError(res, calls, -32601, 'Method not found'), RpcCallError,
      /node answered getblockcount with error -32601: Method not found; pegscope needs Litecoin Core 0\.21\.2 or later/],
    ['an HTML page (502)', (res: ServerResponse) => json(res, 502, '<html>\n<body>\n<h1>502 Bad Gateway</h1>\n</body>\n</html>\n', 'text/html'), NotJsonRpcError, /HTTP 502/],
  ] as const)('does not retry a permanent failure: %s', async (_name, reply, type, message) => {
    const node = await fakeNode((calls, res) => reply(res, calls));
    const err = await client(node.url).call('getblockcount').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(type);
    expect((err as Error).message).toMatch(message);
    expect(node.seen).toHaveLength(1);
  });

  it('does not retry an https URL pointed at a plain-http node', async () => {
    let connections = 0;
    const server = createServer(() => undefined);
    server.on('connection', () => { connections++; });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const err = await client(`https://127.0.0.1:${port}`).call('getblockcount').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NodeUnreachableError);
      expect((err as Error).message).toMatch(/ERR_SSL_WRONG_VERSION_NUMBER.*scheme/);
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });

  it('refuses a URL that is not http or https before sending anything', () => {
    expect(() => client('ftp://127.0.0.1:9332')).toThrow(UsageError);
    expect(() => client('ftp://127.0.0.1:9332')).toThrow('--rpc-url must be an http:// or https:// URL, got ftp://…');
    expect(() => client('notaurl')).toThrow('--rpc-url is not a URL: "notaurl"');
  });
});

describe('cookie authentication', () => {
  const cookieDir = mkdtempSync(join(tmpdir(), 'pegscope-rpc-cookie-'));
  const basic = (secret: string) => `Basic ${Buffer.from(`__cookie__:${secret}`).toString('base64')}`;

  it('re-reads the cookie file when the node, restarted, rejects the old one', async () => {
    const cookie = join(cookieDir, 'restart.cookie');
    writeFileSync(cookie, '__cookie__:first\n');
    let current = 'first';
    const node = await fakeNode((calls, res, req) => (req.headers.authorization === basic(current) ? answer(res, calls, () => current) : json(res, 401, '')));
    const rpc = client(node.url, { user: undefined, password: undefined, cookieFile: cookie });
    expect(await rpc.call('getblockcount')).toBe('first');
    // The node restarts: a new cookie on disk, the old one refused.
    current = 'second';
    writeFileSync(cookie, '__cookie__:second\n');
    expect(await rpc.call('getblockcount')).toBe('second');
    expect(node.seen.map((s) => s.authorization)).toEqual([basic('first'), basic('first'), basic('second')]);
  });

  it('a cookie still refused after re-reading it fails with what to do', async () => {
    const cookie = join(cookieDir, 'stale.cookie');
    writeFileSync(cookie, '__cookie__:stale\n');
    const node = await fakeNode((_calls, res) => json(res, 401, ''));
    const err = await client(node.url, { user: undefined, password: undefined, cookieFile: cookie }).call('getblockcount').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeAuthError);
    expect((err as Error).message).toContain(`rejected the cookie file ${cookie} (HTTP 401)`);
    expect(node.seen).toHaveLength(2);
  });
});

describe('error mapping', () => {
  it('maps a missing transaction index, and any other RPC error, to messages naming the call', async () => {
    const node = await fakeNode((calls, res) => (calls[0]!.method === 'getrawtransaction'
      ? rpcError(res, calls, -5, 'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries.')
      : rpcError(res, calls, -8, 'Block height out of range')));
    const rpc = client(node.url);
    const txErr = await rpc.call('getrawtransaction', 'ab'.repeat(32), false).catch((e: unknown) => e);
    expect(txErr).toBeInstanceOf(TxIndexMissingError);
    expect((txErr as Error).message).toMatch(new RegExp(`cannot look up transaction ${'ab'.repeat(32)} .*restart litecoind with -txindex=1`));
    const err = await rpc.call('getblockhash', 99).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcCallError);
    expect((err as Error).message).toBe('node answered getblockhash with error -8: Block height out of range');
  });

  it('escapes control characters and joins lines of what the node says', async () => {
    const node = await fakeNode((calls, res) => rpcError(res, calls, -1, '\u001b[31mred\u001b[0m\nsecond line\u0000 \u202eevil'));
    const message = ((await client(node.url).call('getblockcount').catch((e: unknown) => e)) as Error).message;
    expect(message).toBe('node answered getblockcount with error -1: \\x1b[31mred\\x1b[0m second line\\x00 \\u{202e}evil');
    // eslint-disable-next-line no-control-regex -- the control characters are what must not be there
    expect(message).not.toMatch(/[\u0000-\u001f\u007f\u202e]/);
  });

  it('an HTML error page is one line, cut short, naming status and content type', async () => {
    const page = `<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n\u001b[2J${'<p>filler</p>\n'.repeat(500)}</body>\n</html>\n`;
    const node = await fakeNode((_calls, res) => json(res, 502, page, 'text/html; charset=utf-8'));
    const message = ((await client(node.url).call('getblockchaininfo').catch((e: unknown) => e)) as Error).message;
    expect(message).not.toContain('\n');
    expect(message).not.toContain('\u001b');
    expect(message).toMatch(new RegExp(`^the server at ${node.url.replace(/\./g, '\\.')} is not a Litecoin Core JSON-RPC server: `
      + 'it answered getblockchaininfo with HTTP 502 \\(text/html; charset=utf-8\\) and a body that is not JSON: "<!DOCTYPE html> <html> <head><title>502 Bad Gateway'));
    expect(message.length).toBeLessThan(500);
  });
});

describe('answer cap', () => {
  const MIB = 1024 * 1024;

  /** A server that answers with an endless body, honouring backpressure; `written` counts what it got out. */
  async function endlessNode() {
    const state = { written: 0, closed: Promise.resolve() };
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const node = await fakeNode((_calls, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"id":0,"error":null,"result":"');
      state.closed = new Promise<void>((resolve) => {
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) state.written += chunk.length;
          if (!res.destroyed) res.once('drain', () => { state.written += chunk.length; pump(); });
        };
        res.on('close', () => resolve());
        pump();
      });
    });
    return { node, state };
  }

  it('stops reading an endless answer past the cap, with an error naming the method, the cap and what to do', async () => {
    const { node, state } = await endlessNode();
    const err = await client(node.url, { maxAnswerBytes: MIB }).call('getblockchaininfo').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnswerTooLargeError);
    expect((err as Error).message).toMatch(/^the node's answer to getblockchaininfo is larger than 1 MiB \(stopped after \d+ bytes\); .*raise PEGSCOPE_RPC_MAX_ANSWER_MB/);
    expect((err as AnswerTooLargeError).bytesRead).toBeGreaterThan(MIB);
    expect((err as AnswerTooLargeError).bytesRead).toBeLessThanOrEqual(MIB + 256 * 1024);
    await state.closed;
    // The connection was dropped: the server could push little more than the cap and the socket buffers.
    expect(state.written).toBeLessThan(MIB + 16 * MIB);
    expect(node.seen).toHaveLength(1);
  });

  it('refuses an answer whose declared length is over the cap without reading it', async () => {
    const node = await fakeNode((_calls, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * MIB) });
      res.write('[');
    });
    const err = await client(node.url, { maxAnswerBytes: MIB }).call('getblockchaininfo').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnswerTooLargeError);
    expect((err as AnswerTooLargeError).bytesRead).toBe(0);
  });

  it('splits a batch whose answer is over the cap and asks again, down to single calls', async () => {
    const big = 'f'.repeat(300 * 1024);
    const node = await fakeNode((calls, res) => answer(res, calls, (c) => `${String(c.params[0])}${big}`));
    const results = await client(node.url, { maxAnswerBytes: MIB }).batch<string>(
      Array.from({ length: 6 }, (_, i) => ({ method: 'getblock', params: [i, 0] })));
    expect(results.map((r) => [r[0], r.length])).toEqual(Array.from({ length: 6 }, (_, i) => [String(i), big.length + 1]));
    // 6 calls (1.8 MB) → 3 + 3 (0.9 MB each, under the cap).
    expect(node.seen.map((s) => s.calls.length)).toEqual([6, 3, 3]);
  });

  it('a single call over the cap fails once it cannot be split', async () => {
    const { node } = await endlessNode();
    const err = await client(node.url, { maxAnswerBytes: MIB }).batch(blockCalls(2)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnswerTooLargeError);
    expect((err as Error).message).toMatch(/answer to getblockhash is larger than 1 MiB/);
    expect(node.seen.map((s) => s.calls.length)).toEqual([2, 1]);
  });
});
