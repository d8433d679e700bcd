import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { RateLimitService, rateLimitCleanupHandler, type Limit } from '../../src/modules/rate-limits/index.js';
import { createTestDatabase } from '../support/database.js';

const database = await createTestDatabase();
const { db } = database;
const limit: Limit = { name: 'test.limit', max: 5, windowSeconds: 60 };

/** Ends the subject's current window, as if its minute had passed. */
async function endWindow(subject: string) {
  await db
    .updateTable('rate_limit_counters')
    .set({ window_ends: sql<Date>`now() - interval '1 second'` })
    .where('subject', '=', subject)
    .execute();
}

describe('database-backed rate limits', () => {
  it('counts concurrent hits from two services on one database exactly', async () => {
    // Two services stand for two server processes: they share nothing but the database.
    const first = new RateLimitService({ db });
    const second = new RateLimitService({ db });
    const verdicts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? first : second).hit(limit, '203.0.113.1')),
    );
    expect(verdicts.filter((verdict) => verdict.allowed)).toHaveLength(5);
    const refused = verdicts.filter((verdict) => !verdict.allowed);
    expect(refused).toHaveLength(15);
    for (const verdict of refused) expect(verdict.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    for (const verdict of refused) expect(verdict.retryAfterSeconds).toBeLessThanOrEqual(60);
    // Another subject has its own window.
    expect((await first.hit(limit, '203.0.113.2')).allowed).toBe(true);
  });

  it('check refuses without counting once the window is used up, on any process', async () => {
    const first = new RateLimitService({ db });
    const second = new RateLimitService({ db });
    for (let i = 0; i < 4; i++) await first.hit(limit, '198.51.100.7');
    expect((await second.check(limit, '198.51.100.7')).allowed).toBe(true);
    expect((await second.check(limit, '198.51.100.7')).allowed).toBe(true);
    await first.hit(limit, '198.51.100.7');
    // A third process that has never seen the subject asks the database.
    const third = new RateLimitService({ db });
    expect(await third.check(limit, '198.51.100.7')).toMatchObject({ allowed: false });
    const row = await db
      .selectFrom('rate_limit_counters')
      .select('hits')
      .where('subject', '=', '198.51.100.7')
      .executeTakeFirstOrThrow();
    expect(row.hits).toBe(5);
  });

  it('opens a new window after the old one ends, and the cleanup job deletes ended counters', async () => {
    const service = new RateLimitService({ db });
    for (let i = 0; i < 5; i++) await service.hit(limit, '192.0.2.9');
    await endWindow('192.0.2.9');
    // A fresh process (no remembered block) starts a new window with the next hit.
    expect((await new RateLimitService({ db }).hit(limit, '192.0.2.9')).allowed).toBe(true);
    const row = await db
      .selectFrom('rate_limit_counters')
      .select('hits')
      .where('subject', '=', '192.0.2.9')
      .executeTakeFirstOrThrow();
    expect(row.hits).toBe(1);

    await endWindow('192.0.2.9');
    await expect(rateLimitCleanupHandler(db)({} as never, new AbortController().signal)).rejects.toThrow(
      /next rate-limit cleanup/,
    );
    const left = await db
      .selectFrom('rate_limit_counters')
      .select('subject')
      .where('subject', '=', '192.0.2.9')
      .execute();
    expect(left).toEqual([]);
  });
});
