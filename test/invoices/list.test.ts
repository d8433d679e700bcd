import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestApp, merchant, merchantApi } from '../support/app.js';

const HOUR = 3_600_000;
const clock = new ManualClock();
const { app } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000' }, clock);

interface Page {
  invoices: { id: string; number: string; status: string; createdAt: string }[];
  nextCursor: string | null;
}

async function shop(permissions = ['invoices:create', 'invoices:read']) {
  const { workspaceId, apiKey } = await merchant(app, permissions);
  const call = merchantApi(app, workspaceId, apiKey);
  let keys = 0;
  return {
    call,
    list: async (query = '') => {
      const response = await call('GET', `/invoices${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<Page>();
    },
    /** One invoice, created an hour after the previous one. */
    create: async () => {
      clock.advance(HOUR);
      const response = await call(
        'POST',
        '/invoices',
        { 'idempotency-key': `list-invoice-${++keys}` },
        { amount: '5' },
      );
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: string; number: string; createdAt: string }>();
    },
  };
}

// Signed in before the clock moves: a sign-in is checked against the real time.
const [pager, filtered, refusing, writer] = [await shop(), await shop(), await shop(), await shop(['invoices:create'])];

describe('GET /invoices', () => {
  it('lists newest first and pages with the cursor until there is none', async () => {
    const merchantShop = pager;
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await merchantShop.create());
    const first = await merchantShop.list('?limit=2');
    expect(first.invoices.map((invoice) => invoice.number)).toEqual([created[4]!.number, created[3]!.number]);
    const second = await merchantShop.list(`?limit=2&cursor=${first.nextCursor}`);
    const third = await merchantShop.list(`?limit=2&cursor=${second.nextCursor}`);
    expect([...second.invoices, ...third.invoices].map((invoice) => invoice.id)).toEqual(
      [created[2], created[1], created[0]].map((invoice) => invoice!.id),
    );
    expect(third.nextCursor).toBeNull();
  });

  it('filters by status as GET shows it and by a half-open range of creation times', async () => {
    const merchantShop = filtered;
    const [a, b, c, d] = [
      await merchantShop.create(),
      await merchantShop.create(),
      await merchantShop.create(),
      await merchantShop.create(),
    ];
    expect((await merchantShop.call('POST', `/invoices/${b!.id}/cancel`)).statusCode).toBe(200);

    const cancelled = await merchantShop.list('?status=cancelled');
    expect(cancelled.invoices.map((invoice) => invoice.id)).toEqual([b!.id]);

    // [b, d): b and c, not d; a range ending where the next begins leaves nothing out and repeats nothing.
    const range = (from: string, until: string) =>
      merchantShop.list(`?createdAfter=${encodeURIComponent(from)}&createdBefore=${encodeURIComponent(until)}`);
    const middle = await range(b!.createdAt, d!.createdAt);
    expect(middle.invoices.map((invoice) => invoice.id)).toEqual([c!.id, b!.id]);
    const before = await merchantShop.list(`?createdBefore=${encodeURIComponent(b!.createdAt)}`);
    const after = await merchantShop.list(`?createdAfter=${encodeURIComponent(d!.createdAt)}`);
    expect(before.invoices.map((invoice) => invoice.id)).toEqual([a!.id]);
    expect(after.invoices.map((invoice) => invoice.id)).toEqual([d!.id]);

    const cancelledInRange = (from: string, until: string) =>
      merchantShop.list(
        `?status=cancelled&createdAfter=${encodeURIComponent(from)}&createdBefore=${encodeURIComponent(until)}`,
      );
    expect((await cancelledInRange(a!.createdAt, c!.createdAt)).invoices.map((invoice) => invoice.id)).toEqual([b!.id]);
    expect((await cancelledInRange(c!.createdAt, d!.createdAt)).invoices).toEqual([]);
  });

  it('refuses a malformed time or cursor with a field error, and a key without invoices:read', async () => {
    const merchantShop = refusing;
    const badTime = await merchantShop.call('GET', '/invoices?createdAfter=yesterday');
    expect(badTime.statusCode).toBe(400);
    expect(badTime.json()).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('createdAfter') });
    const badCursor = await merchantShop.call('GET', '/invoices?cursor=abc');
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.json()).toMatchObject({ code: 'invalid_cursor' });

    const refused = await writer.call('GET', '/invoices');
    expect(refused.statusCode).toBe(403);
  });
});
