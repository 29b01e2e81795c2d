/**
 * HTTP clients for the router tests: node:http without an agent (no fetch:
 * it would decompress and normalise the path), and a raw TCP exchange for
 * requests Node's own client would refuse to send.
 */
import { request } from 'node:http';
import { connect } from 'node:net';

export interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json: any;
}

export function get(base: string, path: string, opts: { method?: string; headers?: Record<string, string> } = {}): Promise<Res> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: opts.method ?? 'GET', headers: opts.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8'), json: parseJson(body.toString('utf8')) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

export interface RawRes {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  text: string;
  json: any;
  /** Whether the server closed the connection. */
  closed: boolean;
}

/**
 * Sends `bytes` on a new connection, then reads until the server closes it
 * (or `waitMs` passes) and parses the one response it sent.
 */
export function rawExchange(base: string, bytes: string, waitMs = 5_000): Promise<RawRes> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const finish = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseRaw(Buffer.concat(chunks).toString('utf8')), closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => finish(true));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? finish(true) : reject(err)));
    socket.write(bytes);
  });
}

function parseRaw(raw: string): Omit<RawRes, 'closed'> {
  const split = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = (split === -1 ? raw : raw.slice(0, split)).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const text = split === -1 ? '' : raw.slice(split + 4);
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, text, json: parseJson(text) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
