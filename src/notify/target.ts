/**
 * Where a webhook may be sent. A URL an operator typed can name, or resolve
 * to, the machine itself or its private network (SSRF): such targets are
 * refused unless the operator allows them (--allow-private-webhooks). The
 * check runs on the addresses DNS returns, and the connection then goes to
 * the address checked (pinned), so a second lookup cannot swap it.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Ranges a public webhook never lives in (IANA special-purpose registries, RFC 6890 and successors). */
const BLOCKED_V4: readonly [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const BLOCKED_V6: readonly [string, number][] = [
  // ::/96 holds :: and ::1 and the deprecated IPv4-compatible addresses (::127.0.0.1); ::ffff:0:0:0/96 the IPv4-translated
  // ones (::ffff:0:127.0.0.1), used only inside a translator's own network: neither is a public webhook.
  ['::', 96], ['::ffff:0:0:0', 96], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
];

const blocked = new BlockList();
for (const [net, prefix] of BLOCKED_V4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of BLOCKED_V6) blocked.addSubnet(net, prefix, 'ipv6');

/** An IPv6 address in the one spelling URLs use (lower case, zeros compressed, no dotted quad): 0:0:0:0:0:FFFF:127.0.0.1 → ::ffff:7f00:1. */
const canonicalV6 = (address: string): string => new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);

/** The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:a.b.c.d), which connects to that IPv4 address. */
function mappedV4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonicalV6(address));
  if (!hex) return null;
  const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether an IP address is loopback, private, link-local or otherwise not on the public internet. */
export function isPrivateAddress(address: string): boolean {
  const v4 = mappedV4(address);
  if (v4) return isPrivateAddress(v4);
  const family = isIP(address);
  if (family === 0) throw new Error(`not an IP address: ${address}`);
  return blocked.check(family === 4 ? address : canonicalV6(address), family === 4 ? 'ipv4' : 'ipv6');
}

/** A refused webhook target; the message names the host and address, never the URL's path or query (they may hold tokens). */
export class TargetRefused extends Error {
  override name = 'TargetRefused';
}

/** Where one attempt connects: the address checked, for the URL's host. */
export interface PinnedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** scheme://host:port of a URL: what logs and messages show of a webhook. */
export const originOf = (url: URL): string => url.origin;

/**
 * Why a webhook URL cannot be used, or null when it can: http or https, a
 * host, no user name or password (they would be logged with the URL).
 */
export function urlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'the webhook is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the webhook must be an http or https URL, not ${url.protocol}`;
  if (url.username || url.password) return 'the webhook URL must not hold a user name or password (the webhook signature authenticates pegscope)';
  if (!url.hostname) return 'the webhook URL has no host';
  return null;
}

type Resolve = (host: string) => Promise<{ address: string; family: number }[]>;
const resolveAll: Resolve = (host) => lookup(host, { all: true, verbatim: true });

/**
 * Resolves the URL's host and checks every address it resolves to; throws
 * TargetRefused for a private one unless `allowPrivate`. Returns the address
 * to connect to.
 */
export async function pinTarget(url: URL, allowPrivate: boolean, resolve: Resolve = resolveAll): Promise<PinnedTarget> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  } catch (err) {
    throw new TargetRefused(`${originOf(url)} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'DNS error'})`);
  }
  if (addresses.length === 0) throw new TargetRefused(`${originOf(url)} does not resolve`);
  const private_ = addresses.find((a) => isPrivateAddress(a.address));
  if (private_ && !allowPrivate) {
    throw new TargetRefused(`${originOf(url)} resolves to ${private_.address}, a loopback, private or link-local address; `
      + 'webhooks go to public addresses unless the operator allows others (--allow-private-webhooks or PEGSCOPE_ALLOW_PRIVATE_WEBHOOKS=1)');
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
