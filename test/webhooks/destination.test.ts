import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  isPublicAddress,
  parseWebhookEndpoint,
  resolvedAddressesAllowed,
} from '../../src/modules/webhook-endpoint/destination.js';
import type { ResolvedAddress, Resolver } from '../../src/modules/webhook-endpoint/dns-resolver.js';
import { postWebhook } from '../../src/modules/webhooks/webhook-http.js';
import { AppError } from '../../src/shared/errors.js';

/** Host forms that must never receive a webhook, written as they would appear in `https://<form>/hook`. */
const BLOCKED_HOSTS = [
  // IPv4: private, loopback, link-local (cloud metadata), CGNAT, unspecified, broadcast, multicast, reserved
  '10.0.0.1',
  '10.255.255.255',
  '172.16.0.1',
  '172.31.255.254',
  '192.168.0.1',
  '192.168.255.255',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254',
  '169.254.0.1',
  '100.64.0.1',
  '100.127.255.254',
  '0.0.0.0',
  '0.1.2.3',
  '255.255.255.255',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '250.1.2.3',
  '192.0.0.1',
  '192.0.0.170',
  '192.0.2.1',
  '198.51.100.7',
  '203.0.113.9',
  '198.18.0.1',
  '198.19.255.254',
  // Other spellings of IPv4, all normalised by the WHATWG parser to the dotted form
  '2130706433',
  '0177.0.0.1',
  '017700000001',
  '0x7f.0.0.1',
  '0x7f000001',
  '0x7f.1',
  '127.1',
  '10.1',
  '127.000.000.001',
  '127.0.0.1.',
  '0',
  '3232235777',
  '0xa9.0xfe.0xa9.0xfe',
  '0xA9FEA9FE',
  '１２７.０.０.１',
  // IPv6: loopback, unspecified, ULA, link-local, site-local, multicast, documentation, discard
  '[::1]',
  '[0:0:0:0:0:0:0:1]',
  '[::]',
  '[fd00::1]',
  '[fc00::1]',
  '[fe80::1]',
  '[febf::1]',
  '[fec0::1]',
  '[ff02::1]',
  '[ff05::1:3]',
  '[2001:db8::1]',
  '[3fff::1]',
  '[100::1]',
  // IPv4-mapped, -compatible and -translated (refused even when the embedded v4 is public: firm rule)
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::ffff:10.0.0.1]',
  '[::ffff:169.254.169.254]',
  '[::ffff:8.8.8.8]',
  '[::127.0.0.1]',
  '[::7f00:1]',
  '[::8.8.8.8]',
  '[::ffff:0:7f00:1]',
  '[64:ff9b::7f00:1]',
  '[64:ff9b::a00:1]',
  '[64:ff9b::8.8.8.8]',
  '[64:ff9b:1::1]',
  // 6to4 and Teredo tunnel the packet to an embedded v4 address
  '[2002:7f00:1::1]',
  '[2002:c0a8:101::1]',
  '[2001::1]',
  '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
  // Names that are local by definition, or not fully qualified
  'localhost',
  'LOCALHOST',
  'localhost.',
  'foo.localhost',
  'a.b.localhost',
  'intranet',
  'foo.',
];

function errorCode(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
}

/**
 * A plain TCP listener on port 443 of every local address (dual stack `::`), counting connections: the
 * proof that a refused destination was never contacted. If port 443 cannot be bound, the resolver call
 * count below still shows that nothing was looked up, but the connection count is vacuous.
 */
let guard: net.Server | undefined;
let connections = 0;
let lookups = 0;
const loopbackResolver: Resolver = async () => {
  lookups += 1;
  return [{ address: '127.0.0.1', family: 4 }];
};

beforeAll(async () => {
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  for (const host of ['::', '127.0.0.1']) {
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen({ port: 443, host, ipv6Only: false }, () => resolve(true));
    });
    if (bound) return void (guard = server);
  }
  console.warn('port 443 unavailable: the zero-connection checks only count resolver calls');
});
afterAll(() => new Promise<void>((resolve) => (guard ? guard.close(() => resolve()) : resolve())));
beforeEach(() => {
  connections = 0;
  lookups = 0;
});

const send = (url: string, resolve: Resolver, timeoutMs = 2000) =>
  postWebhook(
    { url, headers: { 'content-type': 'application/json' }, body: '{}' },
    { allowPrivate: false, resolve, timeoutMs },
  );

describe('blocked destinations', () => {
  it('has a listener on 443 that would count a connection', async () => {
    if (!guard) return;
    await new Promise<void>((resolve) =>
      net
        .connect(443, '127.0.0.1')
        .on('close', () => resolve())
        .on('error', () => {}),
    );
    expect(connections).toBe(1);
  });

  it.each(BLOCKED_HOSTS)('refuses %s at configuration and when sending, without connecting', async (host) => {
    expect(errorCode(() => parseWebhookEndpoint(`https://${host}/hook`, false))).toBe('invalid_webhook_endpoint');
    const outcome = await send(`https://${host}/hook`, loopbackResolver);
    expect(outcome).toMatchObject({ ok: false, error: 'blocked_destination' });
    expect(outcome).not.toHaveProperty('status');
    expect({ connections, lookups }).toEqual({ connections: 0, lookups: 0 });
  });

  it('covers at least 60 forms', () => {
    expect(new Set(BLOCKED_HOSTS).size).toBeGreaterThanOrEqual(60);
  });
});

describe('resolved addresses', () => {
  const privateAnswers = [
    '127.0.0.1',
    '::1',
    '10.0.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '::ffff:127.0.0.1',
    '64:ff9b::7f00:1',
    'fd00::1',
  ];

  it.each(privateAnswers)('blocks a name that resolves to %s, without connecting', async (address) => {
    const outcome = await send('https://hooks.example.com/hook', async () => [
      { address, family: address.includes(':') ? 6 : 4 },
    ]);
    expect(outcome).toMatchObject({ ok: false, error: 'blocked_destination' });
    expect(connections).toBe(0);
  });

  it('blocks the whole answer when one of several addresses is private', async () => {
    const mixed: ResolvedAddress[] = [
      { address: '8.8.8.8', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    expect(await send('https://hooks.example.com/hook', async () => mixed)).toMatchObject({
      ok: false,
      error: 'blocked_destination',
    });
    expect(connections).toBe(0);
  });

  it('cannot be rebound to loopback between attempts: each attempt resolves once and uses that answer', async () => {
    // Answers public first, loopback afterwards. Attempt 1 goes to the public address only; with no
    // internet (or no receiver for this name there) it fails fast, but never reaches the listener.
    const calls: string[] = [];
    const rebinding: Resolver = async (hostname) => {
      calls.push(hostname);
      return [{ address: calls.length === 1 ? '8.8.8.8' : '127.0.0.1', family: 4 }];
    };
    const first = await send('https://rebind.example/hook', rebinding, 300);
    expect(first.ok).toBe(false);
    expect(first).not.toMatchObject({ error: 'blocked_destination' });
    expect(calls).toEqual(['rebind.example']);

    const second = await send('https://rebind.example/hook', rebinding, 300);
    expect(second).toMatchObject({ ok: false, error: 'blocked_destination' });
    expect(calls).toHaveLength(2);
    expect(connections).toBe(0);
  });
});

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2001:4860:4860::8888'])(
    'accepts the public address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  // Forms a URL never carries but a caller might pass: ambiguous or unparseable input is never public.
  it.each([
    '127.1',
    '0x08080808',
    '010.8.8.8',
    '[2606:4700:4700::1111]',
    '2606:4700:4700::1111%eth0',
    '8.8.8.8 ',
    '',
    'example.com',
    '4000::1',
    '::8.8.8.8',
  ])('refuses %j', (address) => expect(isPublicAddress(address)).toBe(false));

  it('checks every address of a DNS answer', () => {
    const v4 = (address: string) => ({ address, family: 4 });
    expect(resolvedAddressesAllowed([v4('8.8.8.8'), v4('1.1.1.1')], false)).toBe(true);
    expect(resolvedAddressesAllowed([v4('8.8.8.8'), v4('10.0.0.1')], false)).toBe(false);
    expect(resolvedAddressesAllowed([], false)).toBe(false);
    expect(resolvedAddressesAllowed([v4('127.0.0.1')], true)).toBe(true);
    expect(resolvedAddressesAllowed([v4('not an address')], true)).toBe(false);
  });
});

describe('parseWebhookEndpoint', () => {
  it('accepts a public https endpoint and normalises it', () => {
    expect(parseWebhookEndpoint('https://Hooks.Example.COM:443/in?x=1', false).href).toBe(
      'https://hooks.example.com/in?x=1',
    );
    expect(parseWebhookEndpoint('https://8.8.8.8/hook', false).href).toBe('https://8.8.8.8/hook');
    expect(parseWebhookEndpoint('https://[2606:4700:4700::1111]/hook', false).hostname).toBe('[2606:4700:4700::1111]');
  });

  const refused: [string, string, RegExp][] = [
    ['plain http', 'http://hooks.example.com/hook', /https/],
    ['another scheme', 'ftp://hooks.example.com/hook', /https/],
    ['a port other than 443', 'https://hooks.example.com:8443/hook', /port 443/],
    ['port 80 over https', 'https://hooks.example.com:80/hook', /port 443/],
    ['a username', 'https://user@hooks.example.com/hook', /username or password/],
    ['a password', 'https://:secret@hooks.example.com/hook', /username or password/],
    ['a fragment', 'https://hooks.example.com/hook#part', /fragment/],
    ['an empty fragment', 'https://hooks.example.com/hook#', /fragment/],
    ['a relative URL', '/hook', /absolute URL/],
    ['a bare host', 'hooks.example.com/hook', /absolute URL/],
    ['more than 2048 characters', `https://hooks.example.com/${'a'.repeat(2048)}`, /2048/],
  ];
  it.each(refused)('refuses %s and names the rule', (_, raw, message) => {
    expect(() => parseWebhookEndpoint(raw, false)).toThrowError(message);
    expect(errorCode(() => parseWebhookEndpoint(raw, false))).toBe('invalid_webhook_endpoint');
  });

  it('accepts exactly 2048 characters', () => {
    const prefix = 'https://hooks.example.com/';
    expect(() => parseWebhookEndpoint(prefix + 'a'.repeat(2048 - prefix.length), false)).not.toThrow();
  });

  it('allows http, any port and private hosts when private receivers are allowed', () => {
    for (const raw of [
      'http://localhost:3000/hook',
      'http://127.0.0.1:8080/hook',
      'https://[::1]:8443/hook',
      'http://intranet/hook',
    ]) {
      expect(parseWebhookEndpoint(raw, true).href).toBe(raw);
    }
  });

  it('names the switch for a local receiver when it refuses one', () => {
    for (const raw of [
      'http://127.0.0.1:8080/hook',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://example.com:8443/hook',
    ]) {
      expect(() => parseWebhookEndpoint(raw, false)).toThrow(/WEBHOOK_ALLOW_PRIVATE=true/);
    }
  });

  it('still refuses credentials and other schemes when private receivers are allowed', () => {
    expect(errorCode(() => parseWebhookEndpoint('http://user:pw@localhost:3000/hook', true))).toBe(
      'invalid_webhook_endpoint',
    );
    expect(errorCode(() => parseWebhookEndpoint('file:///etc/passwd', true))).toBe('invalid_webhook_endpoint');
  });
});
