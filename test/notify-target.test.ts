import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { isPrivateAddress, pinTarget, TargetRefused, urlProblem } from '../src/notify/target.js';
import { generateSecret, secretProblem, signedHeaders } from '../src/notify/signature.js';
import { DEFAULT_RETRY } from '../src/notify/deliver.js';

/** Address checks only: no request is ever sent to these ranges. */
describe('webhook targets', () => {
  it.each([
    '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::7f00:1',
  ])('%s is not public', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '::127.0.0.1', '::7f00:1', '::10.0.0.1', '::8.8.8.8', '::169.254.169.254', '0:0:0:0:0:0:127.0.0.1',
    '::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '::ffff:0:8.8.8.8', '0:0:0:0:ffff:0:a00:1',
    '0:0:0:0:0:FFFF:127.0.0.1', '0:0:0:0:0:ffff:7f00:1', '::FFFF:A9FE:A9FE', '::ffff:0.0.0.0', '64:ff9b::127.0.0.1',
  ])('probe: %s (IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96, or an IPv4-mapped or NAT64 address spelled otherwise) is not public', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it('probe: refuses http://[::127.0.0.1]/ and http://[::ffff:0:127.0.0.1]/ as webhooks', async () => {
    for (const url of ['http://[::127.0.0.1]/', 'http://[::ffff:0:127.0.0.1]:8080/hook', 'http://[0:0:0:0:0:ffff:127.0.0.1]/']) {
      await expect(pinTarget(new URL(url), false), url).rejects.toThrow(TargetRefused);
    }
  });

  it.each(['1.1.1.1', '8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '0:0:0:0:0:ffff:808:808'])('%s is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('refuses a host whose DNS answers include a private address, after resolving and before connecting, and pins the address checked', async () => {
    const answers = async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }];
    await expect(pinTarget(new URL('https://hooks.example/x?token=secret'), false, answers)).rejects.toThrow(TargetRefused);
    await expect(pinTarget(new URL('https://hooks.example/x?token=secret'), false, answers)).rejects.toThrow(/^https:\/\/hooks\.example resolves to 10\.0\.0\.5/);
    const pinned = await pinTarget(new URL('https://hooks.example/x'), false, async () => [{ address: '93.184.216.34', family: 4 }]);
    expect(pinned).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect((await pinTarget(new URL('http://[::1]:8080/'), true)).address).toBe('::1');
    await expect(pinTarget(new URL('http://[::1]:8080/'), false)).rejects.toThrow(/resolves to ::1/);
  });

  it('takes http(s) URLs without credentials', () => {
    expect(urlProblem('https://hooks.example/p')).toBeNull();
    expect(urlProblem('file:///etc/passwd')).toMatch(/http or https/);
    expect(urlProblem('https://user:pw@hooks.example/')).toMatch(/user name or password/);
    expect(urlProblem('not a url')).toMatch(/not a URL/);
  });
});

describe('signatures and retries', () => {
  it('signs as the Standard Webhooks reference implementation verifies', () => {
    const secret = generateSecret();
    expect(secretProblem(secret)).toBeNull();
    const body = JSON.stringify({ type: 'pegin.funded', data: { amount: '1.00000000' } });
    const headers = signedHeaders(secret, 'evt_1', Date.now() / 1000, body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, { ...headers })).toThrow();
  });

  it('backs off exponentially with jitter, capped at 4 h, and gives up within 24 h', () => {
    expect([1, 2, 3].map((n) => DEFAULT_RETRY.delayMs(n, 0.5))).toEqual([30_000, 60_000, 120_000]);
    expect(DEFAULT_RETRY.delayMs(1, 0)).toBe(22_500);
    expect(DEFAULT_RETRY.delayMs(1, 0.999_999)).toBeCloseTo(37_500, -1);
    expect(DEFAULT_RETRY.delayMs(30, 0.5)).toBe(4 * 3600_000);
    let elapsed = 0;
    let attempts = 1;
    while (elapsed + DEFAULT_RETRY.delayMs(attempts, 0.5) <= DEFAULT_RETRY.windowMs) elapsed += DEFAULT_RETRY.delayMs(attempts++, 0.5);
    expect(attempts).toBe(14);
  });
});
