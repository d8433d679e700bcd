import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/main/app.js';
import { createServices } from '../../src/main/services.js';
import { ManualClock } from '../../src/shared/clock.js';
import { BASE_URL, GENEROUS_LIMITS } from '../support/app.js';
import { createTestDatabase } from '../support/database.js';

const database = await createTestDatabase();
const CHECKOUT = '/w/ws_00000000000000000000000000/i/inv_00000000000000000000000000';
/** A burst of 10 per client address, then one more request a minute: no refill within a test. */
const BURST = 10;

/** The real app on a loopback port (every request reaches it from 127.0.0.1), with its log lines. */
async function listening(env: Record<string, string>) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig({
    PUBLIC_BASE_URL: BASE_URL,
    ...GENEROUS_LIMITS,
    CHECKOUT_RATE_LIMIT_PER_MINUTE: '1',
    ...env,
  });
  const app = await buildApp(createServices(config, database.db, new ManualClock()), {
    logger: { level: 'debug', stream },
  });
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  const get = (path: string, forwardedFor?: string) =>
    fetch(`${origin}${path}`, { headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } });
  /** The client address the request log gave the request with this id. */
  const loggedIp = (requestId: string) =>
    lines
      .map((line) => JSON.parse(line) as { reqId?: string; msg: string; req?: { ip?: string } })
      .find((record) => record.reqId === requestId && record.msg === 'request completed')?.req?.ip;
  return { app, get, loggedIp, close: () => app.close() };
}

async function expectRateLimited(response: Response) {
  expect(response.status).toBe(429);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(await response.json()).toEqual({
    code: 'rate_limited',
    message: expect.any(String),
    requestId: response.headers.get('x-request-id'),
  });
}

describe('TRUST_PROXY', () => {
  it('unset: a client cannot escape its per-IP checkout limit by writing X-Forwarded-For', async () => {
    const service = await listening({});
    try {
      for (let i = 0; i < BURST; i += 1) {
        expect((await service.get(CHECKOUT, `203.0.113.${i + 1}`)).status).toBe(404);
      }
      await expectRateLimited(await service.get(CHECKOUT, '203.0.113.200'));
      await expectRateLimited(await service.get(CHECKOUT));
      const logged = await service.get('/healthz', '198.51.100.1');
      expect(service.loggedIp(logged.headers.get('x-request-id')!)).toBe('127.0.0.1');
    } finally {
      await service.close();
    }
  });

  it('a hop count: clients behind the proxy have budgets of their own, and a hop a client adds does not help it', async () => {
    const service = await listening({ TRUST_PROXY: '1' });
    try {
      // The proxy (127.0.0.1 here) appends the address it saw; anything to its left the client wrote.
      for (let i = 0; i < BURST; i += 1) {
        expect((await service.get(CHECKOUT, '203.0.113.1')).status).toBe(404);
      }
      await expectRateLimited(await service.get(CHECKOUT, '203.0.113.1'));
      await expectRateLimited(await service.get(CHECKOUT, '198.51.100.9, 203.0.113.1'));
      await expectRateLimited(await service.get(CHECKOUT, '198.51.100.9, 10.0.0.1, 203.0.113.1'));
      const other = await service.get(CHECKOUT, '203.0.113.2');
      expect(other.status).toBe(404);
      expect(service.loggedIp(other.headers.get('x-request-id')!)).toBe('203.0.113.2');
    } finally {
      await service.close();
    }
  });

  it('the limits counted in the database take the client behind the proxy too', async () => {
    const service = await listening({ TRUST_PROXY: '1', NONCE_RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const nonce = (forwardedFor: string) => service.get('/auth/nonce', forwardedFor);
      expect((await nonce('192.0.2.10')).status).toBe(200);
      expect((await nonce('192.0.2.10')).status).toBe(200);
      await expectRateLimited(await nonce('192.0.2.11, 192.0.2.10'));
      expect((await nonce('192.0.2.11')).status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it('a list of proxies without the peer: X-Forwarded-For is ignored', async () => {
    const service = await listening({ TRUST_PROXY: '10.0.0.0/8, 192.168.0.0/16, fd00::/8' });
    try {
      for (let i = 0; i < BURST; i += 1) {
        expect((await service.get(CHECKOUT, `203.0.113.${i + 1}`)).status).toBe(404);
      }
      const spoofed = await service.get(CHECKOUT, '203.0.113.100');
      await expectRateLimited(spoofed);
      expect(service.loggedIp(spoofed.headers.get('x-request-id')!)).toBe('127.0.0.1');
    } finally {
      await service.close();
    }
  });

  it('a list of proxies with the peer: the client is the first address, from the right, that is no proxy', async () => {
    const service = await listening({ TRUST_PROXY: '127.0.0.0/8, 10.0.0.0/8' });
    try {
      for (let i = 0; i < BURST; i += 1) {
        expect((await service.get(CHECKOUT, '203.0.113.1, 10.1.2.3')).status).toBe(404);
      }
      // The same client through another proxy of the chain, and with an address of its own invention.
      await expectRateLimited(await service.get(CHECKOUT, '203.0.113.1, 10.9.9.9'));
      await expectRateLimited(await service.get(CHECKOUT, '198.51.100.9, 203.0.113.1'));
      expect((await service.get(CHECKOUT, '203.0.113.2, 10.1.2.3')).status).toBe(404);
    } finally {
      await service.close();
    }
  });
});
