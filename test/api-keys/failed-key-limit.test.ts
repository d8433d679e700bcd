import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/main/app.js';
import { createServices } from '../../src/main/services.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestApp, merchant } from '../support/app.js';

const LIMIT = 5;
const { app, config, database } = await createTestApp({ FAILED_API_KEY_LIMIT_PER_MINUTE: String(LIMIT) });
// A second server process on the same database: it shares nothing with the first but PostgreSQL.
const other = await buildApp(createServices(config, database.db, new ManualClock()), { logger: false });
const shop = await merchant(app, ['billing:read']);

/** The shop's own key id with a wrong secret, an unknown key id, and a malformed key. */
const wrongKeys = [
  shop.apiKey.replace(/.$/, (last) => (last === 'a' ? 'b' : 'a')),
  `isk_${'0'.repeat(26)}_${'1'.repeat(52)}`,
  'isk_not_a_key',
];

function billing(ip: string, key: string, target: FastifyInstance = app) {
  return target.inject({
    method: 'GET',
    url: `/w/${shop.workspaceId}/v1/billing`,
    headers: { authorization: `Bearer ${key}` },
    remoteAddress: ip,
  });
}

describe('failed API key attempts per client IP', () => {
  it(`answers ${LIMIT} failures with 401, then 429 rate_limited with Retry-After — to a correct key too`, async () => {
    const ip = '203.0.113.30';
    for (let i = 0; i < LIMIT; i++) expect((await billing(ip, wrongKeys[i % wrongKeys.length]!)).statusCode).toBe(401);
    const refused = await billing(ip, wrongKeys[0]!);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/failed API key/),
      requestId: refused.headers['x-request-id'],
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The address is refused entirely until its window ends: a correct key does not get through.
    const correct = await billing(ip, shop.apiKey);
    expect(correct.statusCode).toBe(429);
    expect(correct.json().code).toBe('rate_limited');
    // Other addresses are not affected.
    expect((await billing('203.0.113.31', shop.apiKey)).statusCode).toBe(200);
  });

  it('does not count successful requests', async () => {
    const ip = '203.0.113.40';
    for (let i = 0; i < 3 * LIMIT; i++) expect((await billing(ip, shop.apiKey)).statusCode).toBe(200);
    for (let i = 0; i < LIMIT; i++) expect((await billing(ip, wrongKeys[1]!)).statusCode).toBe(401);
    expect((await billing(ip, wrongKeys[1]!)).statusCode).toBe(429);
  });

  it('holds across two server processes on one database', async () => {
    const ip = '198.51.100.50';
    const statuses = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        billing(ip, wrongKeys[i % wrongKeys.length]!, i % 2 ? app : other).then((response) => response.statusCode),
      ),
    );
    expect(statuses.filter((status) => status === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(16 - LIMIT);
    expect((await billing(ip, shop.apiKey, other)).statusCode).toBe(429);
    expect((await billing(ip, shop.apiKey, app)).statusCode).toBe(429);
  });
});
