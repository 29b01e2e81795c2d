/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the
 * receiver recomputes HMAC-SHA256 over `<id>.<timestamp>.<body>` with the
 * watch's secret and compares. Any library implementing the standard verifies
 * these (docs/notifications.md shows Node, Python and Go).
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** Bytes of key material in a generated secret (the standard allows 24 to 64). */
const SECRET_BYTES = 32;
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** A new secret: whsec_ and base64 key material. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * Why `secret` is not a usable whsec_ secret, or null when it is. The message
 * never quotes the secret: it ends up on a terminal.
 */
export function secretProblem(secret: string): string | null {
  if (!secret.startsWith(SECRET_PREFIX)) return `a secret starts with ${SECRET_PREFIX}`;
  const material = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(material)) return `a secret is ${SECRET_PREFIX} followed by base64`;
  const bytes = Buffer.from(material, 'base64').length;
  if (bytes < MIN_SECRET_BYTES || bytes > MAX_SECRET_BYTES) return `a secret holds ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes of key material, this one ${bytes}`;
  return null;
}

/** The headers of one attempt: the same id on every attempt, the time of this one. */
export function signedHeaders(secret: string, id: string, timestampSeconds: number, body: string): WebhookHeaders {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const timestamp = String(Math.floor(timestampSeconds));
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}
