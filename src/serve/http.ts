/**
 * HTTP details of the router: bodies and their encodings, conditional
 * requests (RFC 9110 §13), byte ranges (§14), error bodies and CORS. Which
 * status a request gets is decided by the router; how it is written, here.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { CONTENT_TYPES, errorBody, FEED_JSON_TYPE, isJsonFeed } from '../api/release-files.js';
import { ERROR_CACHE_CONTROL } from '../api/caching.js';
import { etagOf, type CachedFile, type OpenFile } from './release.js';

const JSON_TYPE = CONTENT_TYPES.json;
const CSV_TYPE = CONTENT_TYPES.csv;
const COMPRESS_MIN_BYTES = 1024;

/** On every response, errors and raw parser rejections included: browsers may read these (docs/api.md). */
const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, Retry-After, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Pegscope-Release, Content-Range, Accept-Ranges',
  'X-Content-Type-Options': 'nosniff',
};

const COMMON_HEAD: readonly string[] = Object.entries(COMMON_HEADERS).flat();

export function setCommonHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(COMMON_HEADERS)) res.setHeader(name, value);
}

export function preflight(res: ServerResponse): void {
  res.writeHead(204, {
    'Access-Control-Allow-Methods': ALLOWED_METHODS,
    'Access-Control-Allow-Headers': 'X-API-Key, If-None-Match, If-Modified-Since, Range, If-Range, Content-Type',
    'Access-Control-Max-Age': '86400',
    'Content-Length': '0',
  });
  res.end();
}

export function contentType(format: 'json' | 'csv'): string {
  return format === 'csv' ? CSV_TYPE : JSON_TYPE;
}

/** Content-Type of a release file served by its name, by its extension. */
export function staticType(rel: string): string {
  if (isJsonFeed(rel)) return FEED_JSON_TYPE;
  return (CONTENT_TYPES as Record<string, string>)[rel.slice(rel.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
}

/** The error body every refusal gets: `{error, version}` (health's 503 adds `health: {ok: false}`), never cached. */
export function sendError(req: IncomingMessage, res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, extra?: object): void {
  const body = Buffer.from(errorBody(message, extra));
  res.writeHead(status, { ...headers, 'Content-Type': JSON_TYPE, 'Cache-Control': ERROR_CACHE_CONTROL, 'Content-Length': String(body.length) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The methods the API answers, for `Allow` on every 405. */
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

/** A 405's message and headers, wherever the method is seen (router, CONNECT). */
export function methodNotAllowed(method: string): { message: string; headers: Record<string, string> } {
  return { message: `method ${method} is not allowed; the API is read-only: ${ALLOWED_METHODS}`, headers: { Allow: ALLOWED_METHODS } };
}

/**
 * Answers on a socket Node's HTTP layer has given up on (the same error as
 * a whole HTTP/1.1 response), then closes it, as Node itself does.
 */
export function refuseSocket(socket: Duplex, status: number, message: string, extra: Record<string, string> = {}): void {
  const body = errorBody(message);
  const headers = { ...COMMON_HEADERS, ...extra, 'Content-Type': JSON_TYPE, 'Cache-Control': ERROR_CACHE_CONTROL, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' };
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  socket.destroy();
}

/** A request Node's parser rejected (the server's 'clientError'): answered unless a response is already under way. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, maxHeaderBytes: number): void {
  // Node keeps the response in flight on the socket; writing over a started one would corrupt it.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  // Node's parser knows no method outside HTTP's registry (FOO): still a method we refuse, not a malformed request.
  if (err.code === 'HPE_INVALID_METHOD' && isRequestLine(err)) {
    refuseSocket(socket, 405, `the request's method is not one this API answers; it is read-only: ${ALLOWED_METHODS}`, { Allow: ALLOWED_METHODS });
    return;
  }
  refuseSocket(socket, ...clientErrorStatus(err.code, maxHeaderBytes));
}

/** A well-formed request line (`TOKEN target HTTP/1.x`): a method unknown to Node's parser, not garbage. */
function isRequestLine(err: NodeJS.ErrnoException & { rawPacket?: Buffer }): boolean {
  const line = err.rawPacket?.subarray(0, 4096).toString('latin1').split('\r\n', 1)[0] ?? '';
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ HTTP\/1\.[01]$/.test(line);
}

function clientErrorStatus(code: string | undefined, maxHeaderBytes: number): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, `the request head is larger than ${maxHeaderBytes} bytes; send fewer or shorter headers`];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request was not received in time; send the whole request at once'];
    default:
      return [400, `the request is not valid HTTP/1.1 (${code ?? 'unparsable'}); send GET <path> HTTP/1.1 with a Host header`];
  }
}

/** A computed body shaped like a release file; it is compressed on first demand, once per encoding. */
export function bodyOf(text: string): CachedFile {
  const identity = Buffer.from(text, 'utf8');
  return { identity, gzip: null, br: null, etag: etagOf(identity), compressible: identity.length >= COMPRESS_MIN_BYTES };
}

/** One in-memory representation: negotiated encoding, strong ETag per encoding, 304 on a match. */
export function sendBody(req: IncomingMessage, res: ServerResponse, file: CachedFile, type: string, cacheControl: string, filename?: string): void {
  sendPrepared(req, res, new PreparedBody(file, type, cacheControl, filename, []), null);
}

/** A response head as writeHead takes it: names and values, alternating. */
type HeadList = readonly string[];

interface Head {
  etag: string;
  ok: HeadList;
  notModified: HeadList;
}

/**
 * A body with its response heads, built once per encoding and kept with the
 * body in the answer cache, so a repeated answer builds no header objects.
 * `prefix` goes first: the headers every response carries, for a response
 * that has set none yet.
 */
export class PreparedBody {
  private readonly heads: Partial<Record<Encoding, Head>> = {};

  constructor(
    readonly file: CachedFile,
    readonly type: string,
    readonly cacheControl: string,
    readonly filename: string | undefined,
    private readonly prefix: HeadList,
  ) {}

  head(encoding: Encoding): Head {
    return (this.heads[encoding] ??= this.build(encoding));
  }

  private build(encoding: Encoding): Head {
    const { file } = this;
    const etag = encoding === 'identity' ? file.etag : `${file.etag.slice(0, -1)}-${encoding}"`;
    const notModified = [...this.prefix, 'Vary', 'Accept-Encoding', 'ETag', etag, 'Cache-Control', this.cacheControl];
    const ok = [...notModified, 'Content-Type', this.type, 'Content-Length', String(encoded(file, encoding).length)];
    if (encoding !== 'identity') ok.push('Content-Encoding', encoding);
    if (this.filename) ok.push('Content-Disposition', `attachment; filename="${this.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`);
    return { etag, ok, notModified };
  }
}

/** The headers every response carries, as a head prefix for PreparedBody. */
export function commonHead(...more: string[]): HeadList {
  return [...COMMON_HEAD, ...more];
}

/** A prepared body, with `extra` headers (rate limit) after its own when there are any. */
export function sendPrepared(req: IncomingMessage, res: ServerResponse, body: PreparedBody, extra: HeadList | null): void {
  const encoding = chooseEncoding(req.headers['accept-encoding'], body.file);
  const head = body.head(encoding);
  if (noneMatch(req.headers['if-none-match'], head.etag)) {
    res.writeHead(304, extra ? [...head.notModified, ...extra] : head.notModified as string[]);
    res.end();
    return;
  }
  res.writeHead(200, extra ? [...head.ok, ...extra] : head.ok as string[]);
  res.end(req.method === 'HEAD' ? undefined : encoded(body.file, encoding));
}

/**
 * A release file streamed from its open handle (never read whole): 304 on
 * a matching validator, one byte range as 206, an unsatisfiable one as 416.
 * Closes the handle. After the head is sent a read error can only cut the
 * connection, which tells the client its copy is incomplete.
 */
export async function sendFile(req: IncomingMessage, res: ServerResponse, file: OpenFile, type: string, cacheControl: string, now: number): Promise<void> {
  try {
    const headers: Record<string, string> = {
      ETag: file.etag, 'Last-Modified': new Date(file.mtimeMs).toUTCString(), 'Cache-Control': cacheControl, 'Accept-Ranges': 'bytes',
    };
    if (notModified(req, file)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    // Range is defined for GET only; with a stale If-Range the client gets the whole current file.
    const ifRange = req.headers['if-range'];
    const sameBytes = ifRangeHolds(Array.isArray(ifRange) ? ifRange.join(', ') : ifRange, file, now);
    const range = req.method === 'GET' && sameBytes ? rangeOf(req.headers.range, file.size) : FULL;
    if (range.kind === 'unsatisfiable') {
      return sendError(req, res, 416, `the requested range is outside the file (${file.size} bytes); ask for bytes=<first>-<last> with first below ${file.size}, or omit Range`, { 'Content-Range': `bytes */${file.size}` });
    }
    const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, file.size - 1];
    headers['Content-Type'] = type;
    headers['Content-Length'] = String(end - start + 1);
    if (range.kind === 'partial') headers['Content-Range'] = `bytes ${start}-${end}/${file.size}`;
    res.writeHead(range.kind === 'partial' ? 206 : 200, headers);
    if (req.method === 'HEAD' || end < start) {
      res.end();
      return;
    }
    await pipeline(file.handle.createReadStream({ start, end, autoClose: false }), res).catch(() => res.destroy());
  } finally {
    await file.handle.close();
  }
}

/** If-None-Match, else If-Modified-Since (RFC 9110 §13.2.2); only GET and HEAD reach here. */
function notModified(req: IncomingMessage, file: OpenFile): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return noneMatch(ifNoneMatch, file.etag);
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && wholeSeconds(file.mtimeMs) <= since;
}

/** If-None-Match by weak comparison (RFC 9110 §8.8.3.2): `*`, or a listed tag with the same opaque part. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const [tag] of header.matchAll(/(?:W\/)?"[^"]*"/g)) {
    if (tag.replace(/^W\//, '') === opaque) return true;
  }
  return false;
}

/**
 * If-Range (RFC 9110 §13.1.5): the range applies only to the very bytes the
 * client holds part of: our strong ETag exactly (a weak tag never matches),
 * or exactly our Last-Modified when that date is strong (the file is at least
 * a second older than now, so no rewrite within the same second can hide).
 */
export function ifRangeHolds(header: string | undefined, file: Pick<OpenFile, 'etag' | 'mtimeMs'>, now: number): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === file.etag;
  const date = Date.parse(value);
  return date === wholeSeconds(file.mtimeMs) && file.mtimeMs <= now - 1000;
}

const wholeSeconds = (ms: number): number => Math.floor(ms / 1000) * 1000;

export type ByteRange = { kind: 'full' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };
const FULL: ByteRange = { kind: 'full' };
const UNSATISFIABLE: ByteRange = { kind: 'unsatisfiable' };

/**
 * A Range header against `size` bytes (RFC 9110 §14.1.2). One range is
 * served as it is asked; a header we do not serve as parts (another unit,
 * several ranges, bad syntax, last before first) is ignored, as the RFC
 * allows, so the whole file is sent; one range wholly past the end is
 * unsatisfiable.
 */
export function rangeOf(header: string | undefined, size: number): ByteRange {
  if (header === undefined) return FULL;
  const spec = /^\s*bytes\s*=\s*(\d*)-(\d*)\s*$/i.exec(header);
  if (!spec || (spec[1] === '' && spec[2] === '')) return FULL;
  const first = spec[1]!;
  const last = spec[2]!;
  if (first === '') {
    const suffix = Number(last);
    return suffix === 0 || size === 0 ? UNSATISFIABLE : { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Infinity : Number(last);
  if (end < start) return FULL;
  if (start >= size) return UNSATISFIABLE;
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}

type Encoding = 'br' | 'gzip' | 'identity';

function chooseEncoding(header: string | undefined, file: CachedFile): Encoding {
  if (!header) return 'identity';
  if (!file.br && !file.gzip && !file.compressible) return 'identity';
  const accepted = new Set<string>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  if ((file.br || file.compressible) && (accepted.has('br') || accepted.has('*'))) return 'br';
  if ((file.gzip || file.compressible) && (accepted.has('gzip') || accepted.has('*'))) return 'gzip';
  return 'identity';
}

function encoded(file: CachedFile, encoding: Encoding): Buffer {
  if (encoding === 'identity') return file.identity;
  if (encoding === 'br') return (file.br ??= brotliCompressSync(file.identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } }));
  return (file.gzip ??= gzipSync(file.identity, { level: 6 }));
}
