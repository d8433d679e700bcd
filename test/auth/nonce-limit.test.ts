import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/main/app.js';
import { authCleanupHandler } from '../../src/modules/auth/auth.jobs.js';
import { createServices } from '../../src/main/services.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestApp } from '../support/app.js';

const LIMIT = 3;
const { app, config, database } = await createTestApp({ NONCE_RATE_LIMIT_PER_MINUTE: String(LIMIT) });
// A second server process on the same database: it shares nothing with the first but PostgreSQL.
const other = await buildApp(createServices(config, database.db, new ManualClock()), { logger: false });

const nonce = (target = app, ip = '203.0.113.10') =>
  target.inject({ method: 'GET', url: '/auth/nonce', remoteAddress: ip });

describe('sign-in nonces per client IP', () => {
  it(`issues ${LIMIT} a minute to one address, then answers 429 rate_limited with Retry-After`, async () => {
    for (let i = 0; i < LIMIT; i++) expect((await nonce()).statusCode).toBe(200);
    const refused = await nonce();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/Retry-After/),
      requestId: refused.headers['x-request-id'],
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Refused requests write no nonce.
    const rows = await database.db.selectFrom('auth_nonces').select('nonce').execute();
    expect(rows).toHaveLength(LIMIT);
    // Another address has its own allowance.
    expect((await nonce(app, '203.0.113.11')).statusCode).toBe(200);
  });

  it('holds across two server processes on one database', async () => {
    const ip = '198.51.100.20';
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => nonce(i % 2 ? app : other, ip).then((response) => response.statusCode)),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10 - LIMIT);
    expect((await nonce(other, ip)).statusCode).toBe(429);
    expect((await nonce(app, ip)).statusCode).toBe(429);
  });

  it('the cleanup job deletes nonces past their 10-minute lifetime', async () => {
    await database.db
      .insertInto('auth_nonces')
      .values([{ nonce: 'stale0nonce0stale0nonce0st' }, { nonce: 'fresh0nonce0fresh0nonce0fr' }])
      .execute();
    await sql`UPDATE auth_nonces SET created_at = now() - interval '11 minutes' WHERE nonce = 'stale0nonce0stale0nonce0st'`.execute(
      database.db,
    );
    await expect(authCleanupHandler(database.db)({} as never, new AbortController().signal)).rejects.toThrow(
      /next cleanup/,
    );
    const left = await database.db
      .selectFrom('auth_nonces')
      .select('nonce')
      .where('nonce', 'like', '%0nonce0%')
      .execute();
    expect(left.map((row) => row.nonce)).toEqual(['fresh0nonce0fresh0nonce0fr']);
  });
});
