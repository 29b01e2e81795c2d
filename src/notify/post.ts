/**
 * One webhook attempt: a POST to the pinned address with a time limit for
 * the whole exchange. Only the status matters, so the response is read up to
 * its headers (capped) and the connection then closed: a receiver cannot make
 * pegscope read or hold a large answer. Redirects are not
 * followed (a 3xx is a failed attempt): a redirect could lead anywhere,
 * private networks included.
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { originOf, type PinnedTarget } from './target.js';

export interface PostLimits {
  /** The whole attempt: connect, send, and the response's status and headers. */
  timeoutMs: number;
  /** Bytes of status line and headers read at most (a longer answer is a failed attempt); the body is never read. */
  maxHeaderBytes: number;
}

export const DEFAULT_POST_LIMITS: PostLimits = { timeoutMs: 10_000, maxHeaderBytes: 16 * 1024 };

export type PostOutcome = { ok: true; status: number } | { ok: false; error: string };

/** The pinned address for every lookup of this request, in the shape Node asks for (one address, or a list with `all`). */
function pinnedLookup(target: PinnedTarget): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as LookupFunction;
}

/** POSTs `body` with `headers`; any 2xx is delivered. Never throws; an error names the target's origin only. */
export function postWebhook(target: PinnedTarget, headers: Record<string, string>, body: string, limits: PostLimits = DEFAULT_POST_LIMITS): Promise<PostOutcome> {
  const { url } = target;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const options: RequestOptions = {
    method: 'POST', lookup: pinnedLookup(target), agent: false, maxHeaderSize: limits.maxHeaderBytes,
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const req = request(url, options, (res) => {
      const status = res.statusCode ?? 0;
      finish(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, error: `HTTP ${status}` });
    });
    const timer = setTimeout(() => finish({ ok: false, error: `no answer within ${limits.timeoutMs / 1000} s` }), limits.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, error: `${originOf(url)}: ${err.code ?? 'connection failed'}` }));
    req.end(body);
  });
}
