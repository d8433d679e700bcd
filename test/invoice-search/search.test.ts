import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { randomToken } from '../../src/shared/ids.js';
import { BASE_URL, createTestApp, merchant } from '../support/app.js';

const clock = new ManualClock();
const { app, database } = await createTestApp(
  { API_RATE_LIMIT_PER_MINUTE: '1000000', NEW_WORKSPACE_CREDITS: '1000' },
  clock,
);

interface InvoiceView {
  id: string;
  number: string;
  status: string;
  externalId: string | null;
  url: string;
  checkoutUrl: string;
}
interface Page {
  invoices: InvoiceView[];
  nextCursor: string | null;
}

/** A workspace with a key that may create and read invoices. */
async function shop() {
  const m = await merchant(app, ['invoices:create', 'invoices:read', 'payments:read']);
  const headers = { authorization: `Bearer ${m.apiKey}` };
  let keys = 0;
  const search = (query: Record<string, string>) =>
    app.inject({
      method: 'GET',
      url: `/w/${m.workspaceId}/v1/invoice-search?${new URLSearchParams(query).toString()}`,
      headers,
    });
  return {
    workspaceId: m.workspaceId,
    create: async (body: { externalId?: string } = {}) => {
      const response = await app.inject({
        method: 'POST',
        url: `/w/${m.workspaceId}/v1/invoices`,
        headers: { ...headers, 'idempotency-key': `search-${++keys}-${m.workspaceId}` },
        payload: { amount: '10', ...body },
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<InvoiceView>();
    },
    get: async (invoiceId: string) =>
      (
        await app.inject({ method: 'GET', url: `/w/${m.workspaceId}/v1/invoices/${invoiceId}`, headers })
      ).json<InvoiceView>(),
    search,
    page: async (query: Record<string, string>) => {
      const response = await search(query);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<Page>();
    },
    /** The numbers of the invoices `q` finds, all on one page. */
    numbers: async (q: string) => {
      const response = await search({ q, limit: '100' });
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json<Page>();
      expect(page.nextCursor).toBeNull();
      return page.invoices.map((invoice) => invoice.number);
    },
  };
}

/** A payment attempt that used `txHash`, written directly: the search only reads these rows. */
async function attemptWith(
  workspaceId: string,
  invoiceId: string,
  txHash: string,
  status: 'succeeded' | 'failed' = 'succeeded',
) {
  await sql`
    INSERT INTO payment_intents (workspace_id, id, invoice_id, method, status, network, amount, pay_to, link_version, tx_hash, log_index, submitted_at)
    VALUES (${workspaceId}, ${`pi_${randomToken()}`}, ${invoiceId}, 'transaction', ${status}, 'base-sepolia', 10000000,
            '0x00000000000000000000000000000000000000aa', 1, ${txHash}, 0, now())`.execute(database.db);
}

const newTxHash = () => `0x${randomBytes(32).toString('hex')}`;

const [main, other, paging] = await Promise.all([shop(), shop(), shop()]);
// main: INV-000001 … INV-000005; other: INV-000001 … INV-000002 with the same order reference.
const first = await main.create({ externalId: 'order-7' });
const second = await main.create({ externalId: 'ORDER-7' });
const third = await main.create({ externalId: 'order-7' });
const fourth = await main.create({ externalId: 'INV-000002' });
const fifth = await main.create({ externalId: '42' });
const foreign = await other.create({ externalId: 'order-7' });
await other.create({ externalId: '42' });

describe('GET /invoice-search', () => {
  it('finds an invoice by its number, in any letter case and with or without zero padding', async () => {
    expect(await main.numbers('INV-000003')).toEqual(['INV-000003']);
    expect(await main.numbers('inv-000003')).toEqual(['INV-000003']);
    expect(await main.numbers('INV-3')).toEqual(['INV-000003']);
    expect(await main.numbers('  INV-000005 ')).toEqual(['INV-000005']);
    expect(await main.numbers('INV-000099')).toEqual([]);
    expect(await main.numbers('INV-0')).toEqual([]);
  });

  it('shows each found invoice exactly as GET /invoices/{id} does', async () => {
    const { invoices } = await main.page({ q: first.number });
    expect(invoices).toEqual([await main.get(first.id)]);
  });

  it('finds every invoice sharing an order reference, exactly and case-sensitively, newest first', async () => {
    expect(await main.numbers('order-7')).toEqual([third.number, first.number]);
    expect(await main.numbers('ORDER-7')).toEqual([second.number]);
    expect(await main.numbers('order')).toEqual([]);
    expect(await main.numbers('order-7 x')).toEqual([]);
  });

  it('looks a bare number up as an order reference only, never as an invoice number', async () => {
    expect(await main.numbers('42')).toEqual([fifth.number]);
    expect(await main.numbers('2')).toEqual([]);
  });

  it('answers the union when a text is both an order reference and an invoice number', async () => {
    expect(await main.numbers('INV-000002')).toEqual([fourth.number, second.number]);
  });

  it('finds an invoice by its checkout URL and by its x402 url', async () => {
    expect(second.checkoutUrl).toBe(`${BASE_URL}/w/${main.workspaceId}/i/${second.id}`);
    expect(await main.numbers(second.checkoutUrl)).toEqual([second.number]);
    expect(await main.numbers(second.url)).toEqual([second.number]);
    // Tracking parameters do not change the invoice; the host's letter case is not significant.
    expect(await main.numbers(`${second.checkoutUrl}?utm_source=mail#pay`)).toEqual([second.number]);
    expect(await main.numbers(second.checkoutUrl.replace('localhost', 'LOCALHOST'))).toEqual([second.number]);
  });

  it("finds nothing for links that are not this service's invoice links", async () => {
    const path = `/w/${main.workspaceId}/i/${second.id}`;
    for (const q of [
      `https://evil.example${path}`,
      `http://localhost:3001${path}`,
      `${BASE_URL}${path}/`,
      `${BASE_URL}/w/${main.workspaceId}/v1/invoices/${second.id}`,
      `http://user:pass@localhost:3000${path}`,
    ]) {
      expect(await main.numbers(q), q).toEqual([]);
    }
  });

  it('finds an invoice by its id', async () => {
    expect(await main.numbers(third.id)).toEqual([third.number]);
    expect(await main.numbers(third.id.toUpperCase())).toEqual([]);
  });

  it('finds the invoices paid or attempted with a transaction hash, in any letter case, once each', async () => {
    const hash = newTxHash();
    await attemptWith(main.workspaceId, first.id, hash, 'failed');
    await attemptWith(main.workspaceId, first.id, hash);
    await attemptWith(main.workspaceId, fourth.id, hash, 'failed');
    expect(await main.numbers(hash)).toEqual([fourth.number, first.number]);
    expect(await main.numbers(`0x${hash.slice(2).toUpperCase()}`)).toEqual([fourth.number, first.number]);
    expect(await main.numbers(newTxHash())).toEqual([]);
  });

  it("never finds another workspace's invoice, by any kind of query", async () => {
    const hash = newTxHash();
    await attemptWith(other.workspaceId, foreign.id, hash);
    expect(await main.numbers('order-7')).toEqual([third.number, first.number]);
    expect(await other.numbers('order-7')).toEqual([foreign.number]);
    for (const q of [foreign.checkoutUrl, foreign.url, foreign.id, hash]) {
      expect(await main.numbers(q), q).toEqual([]);
      expect(await other.numbers(q), q).toEqual([foreign.number]);
    }
    // The same number exists in both workspaces: each sees its own.
    const own = await main.page({ q: 'INV-000001' });
    expect(own.invoices.map((invoice) => invoice.id)).toEqual([first.id]);
  });

  it('reads an open invoice past its deadline as expired, as GET /invoices/{id} does', async () => {
    const s = await shop();
    const invoice = await s.create({ externalId: 'late' });
    clock.advance(2 * 3_600_000);
    const { invoices } = await s.page({ q: 'late' });
    expect(invoices[0]).toMatchObject({ id: invoice.id, status: 'expired' });
    expect(invoices).toEqual([await s.get(invoice.id)]);
  });

  it('pages through 60 invoices sharing an order reference: 25, 25, 10, newest first, no repeats', async () => {
    const shared: string[] = [];
    for (let i = 0; i < 60; i++) {
      shared.push((await paging.create({ externalId: 'bulk' })).number);
      // Unrelated invoices in between, so that the matching numbers are not contiguous.
      if (i % 7 === 0) await paging.create({ externalId: 'unrelated' });
    }
    const pages: Page[] = [];
    let cursor: string | null | undefined;
    do {
      pages.push(await paging.page({ q: 'bulk', ...(cursor ? { cursor } : {}) }));
      cursor = pages.at(-1)!.nextCursor;
    } while (cursor !== null && pages.length < 10);
    expect(pages.map((page) => page.invoices.length)).toEqual([25, 25, 10]);
    expect(pages.map((page) => page.nextCursor === null)).toEqual([false, false, true]);
    expect(pages.flatMap((page) => page.invoices.map((invoice) => invoice.number))).toEqual(shared.reverse());
  });

  it('ends with nextCursor null when the last page is exactly full', async () => {
    const full = await paging.page({ q: 'bulk', limit: '60' });
    expect([full.invoices.length, full.nextCursor]).toEqual([60, null]);
    const short = await paging.page({ q: 'bulk', limit: '59' });
    expect(short.nextCursor).not.toBeNull();
    expect((await paging.page({ q: 'bulk', limit: '59', cursor: short.nextCursor! })).invoices).toHaveLength(1);
  });

  it('answers no match with an empty page and no cursor', async () => {
    expect(await main.page({ q: 'nothing-like-this' })).toEqual({ invoices: [], nextCursor: null });
    // A text too long to be an order reference is no match either, not an error.
    expect(await main.page({ q: 'x'.repeat(2048) })).toEqual({ invoices: [], nextCursor: null });
  });

  it('refuses a NUL in q like any string that no field can hold', async () => {
    const response = await main.search({ q: 'a\u0000b' });
    expect({ status: response.statusCode, code: response.json().code }).toEqual({
      status: 400,
      code: 'invalid_request',
    });
  });

  it('refuses a cursor it did not hand out with 400 invalid_cursor', async () => {
    for (const cursor of ['', 'abc', '0', '-1', '007', '1.5', '9223372036854775808', 'x'.repeat(65)]) {
      const response = await main.search({ q: 'order-7', cursor });
      expect({ cursor, status: response.statusCode, code: response.json().code }).toEqual({
        cursor,
        status: 400,
        code: 'invalid_cursor',
      });
    }
  });

  it('refuses a missing, blank or oversized q and an out-of-range limit with 400 invalid_request', async () => {
    const queries: Record<string, string>[] = [
      {},
      { q: '' },
      { q: '   ' },
      { q: 'x'.repeat(2049) },
      { q: 'order-7', limit: '0' },
      { q: 'order-7', limit: '101' },
      { q: 'order-7', limit: 'ten' },
    ];
    for (const query of queries) {
      const response = await main.search(query);
      expect({ query, status: response.statusCode, code: response.json().code }).toEqual({
        query,
        status: 400,
        code: 'invalid_request',
      });
    }
  });

  it('is documented under Invoices with the invoices:read permission', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, { get?: { tags: string[]; 'x-permission': string } }>;
    }>();
    expect(document.paths['/w/{workspaceId}/v1/invoice-search']?.get).toMatchObject({
      tags: ['Invoices'],
      'x-permission': 'invoices:read',
    });
  });
});
