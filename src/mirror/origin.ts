/**
 * Reading a release from an origin over HTTP(S) for `pegscope mirror`
 * (docs/mirror.md): no compression (a file's sha256 is of its bytes as the
 * manifest lists them), redirects followed only within the origin, retries
 * with backoff for what may pass (network errors, 429, 5xx), never for an
 * answer that is wrong.
 */
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Refused for good: retrying cannot help (a 404, HTML, a redirect off the origin, too many bytes). */
export class OriginError extends Error {}

export interface Origin {
  /** The release root, ending in '/'. */
  base: URL;
  /** Attempts per request, the first included. */
  attempts: number;
  /** The first retry's wait; each next one doubles it. */
  backoffMs: number;
  /** A request with no byte received for this long is abandoned (and retried). */
  timeoutMs: number;
}

const MAX_REDIRECTS = 5;
const RETRY_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/** The origin's release root as a URL ending in '/': http(s) only, no credentials, query or fragment. */
export function originBase(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OriginError(`ORIGIN_URL ${text} is not a URL; give the root of a release, e.g. https://pegscope.example/ (where /manifest.json is)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OriginError(`ORIGIN_URL must be http(s), got ${url.protocol}`);
  if (url.username || url.password) throw new OriginError('ORIGIN_URL must not carry a user or password');
  if (url.search || url.hash) throw new OriginError('ORIGIN_URL must have no query or fragment: give the directory that holds manifest.json');
  if (url.pathname.endsWith('/manifest.json')) url.pathname = url.pathname.slice(0, -'manifest.json'.length);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** A release path (checked by the manifest reader: relative, no `..`) under the origin's root, each segment escaped. */
export function fileUrl(base: URL, path: string): URL {
  return new URL(path.split('/').map(encodeURIComponent).join('/'), base);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * GET with redirects followed by hand: a redirect to another origin (scheme,
 * host and port) is refused, since the signature says who published the
 * bytes but a mirror operator chose which host to trust with availability
 * and with its logs (docs/mirror.md "Redirects").
 */
async function get(origin: Origin, url: URL, headers: Record<string, string>): Promise<Response> {
  let at = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await fetch(at, { redirect: 'manual', headers: { 'accept-encoding': 'identity', ...headers }, signal: AbortSignal.timeout(origin.timeoutMs) });
    if (res.status < 300 || res.status >= 400 || res.status === 304) return res;
    await res.body?.cancel();
    const location = res.headers.get('location');
    if (!location) throw new OriginError(`${at.pathname}: HTTP ${res.status} without a Location`);
    const next = new URL(location, at);
    if (next.origin !== origin.base.origin) {
      throw new OriginError(`${at.pathname}: the origin redirects to ${next.origin}, another host; pegscope mirror follows redirects only within ${origin.base.origin} (give the final URL as ORIGIN_URL if you trust it)`);
    }
    at = next;
  }
  throw new OriginError(`${url.pathname}: more than ${MAX_REDIRECTS} redirects`);
}

/** Runs `attempt` until it succeeds, fails with an OriginError, or runs out of attempts; waits back off exponentially. */
export async function withRetries<T>(origin: Origin, what: string, attempt: () => Promise<T>, onRetry?: (why: string) => void): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof OriginError || n >= origin.attempts) throw err instanceof OriginError ? err : new Error(`${what}: ${(err as Error).message} (after ${n} attempts)`);
      onRetry?.(`${what}: ${(err as Error).message}; retrying`);
      await sleep(origin.backoffMs * 2 ** (n - 1) * (0.5 + Math.random() / 2));
    }
  }
}

/** Thrown for an answer worth asking again. */
class Transient extends Error {}

function checkStatus(res: Response, path: string, allowed: number[]): void {
  if (allowed.includes(res.status)) return;
  const message = `${path}: the origin answered HTTP ${res.status}`;
  if (RETRY_STATUS.has(res.status)) throw new Transient(message);
  throw new OriginError(res.status === 404 ? `${message}: it does not serve this file of its release (docs/mirror.md "Origins")` : message);
}

/** An HTML page where a release file should be: a host answering its index page for every path. */
function refuseHtml(res: Response, path: string): void {
  const type = res.headers.get('content-type') ?? '';
  if (/^text\/html\b/i.test(type) && !/\.html$/.test(path)) {
    throw new OriginError(`${path}: the origin answered a web page (text/html), not the file: is ORIGIN_URL the root of a pegscope release (where manifest.json is)?`);
  }
}

/** A file of unknown size (the manifest: over 1 GB at x10) streamed into `file`, at most `maxBytes`. */
export async function fetchToFile(origin: Origin, path: string, file: string, maxBytes: number, onRetry?: (why: string) => void): Promise<void> {
  await withRetries(origin, path, async () => {
    const res = await get(origin, fileUrl(origin.base, path), {});
    checkStatus(res, path, [200]);
    refuseHtml(res, path);
    let size = 0;
    const limited = async function* (body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > maxBytes) throw new OriginError(`${path}: the origin sent more than ${maxBytes} bytes`);
        yield chunk;
      }
    };
    try {
      await pipeline(Readable.fromWeb(res.body as never), limited, createWriteStream(file));
    } catch (err) {
      if (err instanceof OriginError) throw err;
      throw new Transient((err as Error).message);
    }
  }, onRetry);
}

/** A small file (a signature), whole, at most `maxBytes`. */
export async function fetchSmall(origin: Origin, path: string, maxBytes: number, onRetry?: (why: string) => void): Promise<Uint8Array> {
  return withRetries(origin, path, async () => {
    const res = await get(origin, fileUrl(origin.base, path), {});
    checkStatus(res, path, [200]);
    refuseHtml(res, path);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > maxBytes) {
        await res.body?.cancel();
        throw new OriginError(`${path}: the origin sent more than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return new Uint8Array(Buffer.concat(chunks));
  }, onRetry);
}

/**
 * Downloads `path` into `partFile`, resuming what an earlier attempt left
 * there with a Range request when the origin honours it (else from the
 * start). Never writes more than `size` bytes; the caller checks the sha256.
 * `onBytes` gets each chunk's length, for progress. Returns the bytes that
 * came over the network and those an earlier attempt or pull had left.
 */
export async function downloadTo(origin: Origin, path: string, size: number, partFile: string, onBytes: (n: number) => void,
  onRetry?: (why: string) => void): Promise<{ fetched: number; kept: number }> {
  let fetched = 0;
  let kept = 0;
  await withRetries(origin, path, async () => {
    const have = await stat(partFile).then((s) => (s.size <= size ? s.size : 0), () => 0);
    const res = await get(origin, fileUrl(origin.base, path), have > 0 ? { range: `bytes=${have}-` } : {});
    checkStatus(res, path, have > 0 ? [200, 206, 416] : [200]);
    refuseHtml(res, path);
    if (res.status === 416) {
      await res.body?.cancel();
      throw new Transient(`${path}: the origin refused to resume at byte ${have}`);
    }
    const resumed = res.status === 206 && res.headers.get('content-range')?.startsWith(`bytes ${have}-`) === true;
    if (res.status === 206 && !resumed) {
      await res.body?.cancel();
      throw new OriginError(`${path}: the origin answered another byte range than asked (${res.headers.get('content-range') ?? 'none'})`);
    }
    kept = resumed ? have : 0;
    let written = kept;
    const limited = async function* (body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
      for await (const chunk of body) {
        written += chunk.length;
        if (written > size) throw new OriginError(`${path}: the origin sent more bytes than the manifest lists (${size})`);
        fetched += chunk.length;
        onBytes(chunk.length);
        yield chunk;
      }
    };
    try {
      await pipeline(Readable.fromWeb(res.body as never), limited, createWriteStream(partFile, { flags: resumed ? 'a' : 'w' }));
    } catch (err) {
      if (err instanceof OriginError) throw err;
      throw new Transient((err as Error).message);
    }
    if (written < size) throw new Transient(`${path}: the origin sent ${written} of ${size} bytes`);
  }, onRetry);
  return { fetched, kept };
}
