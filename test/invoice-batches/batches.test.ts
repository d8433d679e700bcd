import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTestApp, merchant } from '../support/app.js';

const testApp = await createTestApp({ NEW_WORKSPACE_CREDITS: '100000', API_RATE_LIMIT_PER_MINUTE: '10000000' });
const { app, database } = testApp;

interface InvoiceResult {
  invoice?: { id: string; number: string; amount: string; status: string };
  error?: { code: string; message: string };
}

async function shop() {
  const merchantShop = await merchant(app, ['invoices:create', 'invoices:read', 'billing:read']);
  const headers = { authorization: `Bearer ${merchantShop.apiKey}` };
  const base = `/w/${merchantShop.workspaceId}/v1`;
  return {
    ...merchantShop,
    quote: (items: unknown[]) =>
      app.inject({ method: 'POST', url: `${base}/invoice-batches/quote`, headers, payload: { items } }),
    batch: (key: string, items: unknown[], budgetCredits = 1000) =>
      app.inject({
        method: 'POST',
        url: `${base}/invoice-batches`,
        headers: { ...headers, 'idempotency-key': key },
        payload: { items, budgetCredits },
      }),
    billing: async () =>
      (await app.inject({ method: 'GET', url: `${base}/billing`, headers })).json<{
        creditBalance: number;
        reservedCredits: number;
      }>(),
    invoiceCount: async () =>
      Number(
        (
          await sql<{
            n: bigint;
          }>`SELECT count(*) AS n FROM invoices WHERE workspace_id = ${merchantShop.workspaceId}`.execute(database.db)
        ).rows[0]!.n,
      ),
  };
}

const INVALID: [unknown, string][] = [
  [{ amount: '1.2345678' }, 'invalid_amount'],
  [{ amount: '5', colour: 'red' }, 'unknown_field'],
  [{ amount: '5', expiresIn: 5 }, 'invalid_expires_in'],
  [{ amount: '99999999' }, 'amount_too_large'],
  ['not an object', 'invalid_request'],
];

/** 25 items: 20 valid (those at even positions with a 1-day window), and the invalid ones at positions 3, 8, 13, 18, 23. */
function mixedItems(): { items: unknown[]; invalidAt: Map<number, string> } {
  const items: unknown[] = [];
  const invalidAt = new Map<number, string>();
  for (let index = 0; index < 25; index++) {
    if (index % 5 === 3) {
      const [item, code] = INVALID[(index - 3) / 5]!;
      items.push(item);
      invalidAt.set(index, code);
    } else {
      items.push({
        amount: `${index + 1}.50`,
        externalId: `order-${index}`,
        ...(index % 2 === 0 && { expiresIn: 86400 }),
      });
    }
  }
  return { items, invalidAt };
}

describe('POST /invoice-batches/quote', () => {
  it('prices each valid item, reports each invalid one with its code, and creates nothing', async () => {
    const merchantShop = await shop();
    const { items, invalidAt } = mixedItems();
    const response = await merchantShop.quote(items);
    expect(response.statusCode).toBe(200);
    const quote = response.json<{
      items: { valid: boolean; credits?: { total: number }; error?: { code: string } }[];
      totalCredits: Record<string, number>;
      availableCredits: number;
      covered: boolean;
    }>();
    quote.items.forEach((item, index) => {
      if (invalidAt.has(index))
        expect(item, `item ${index}`).toMatchObject({ valid: false, error: { code: invalidAt.get(index) } });
      else
        expect(item, `item ${index}`).toEqual({
          valid: true,
          credits: { creation: index % 2 === 0 ? 2 : 1, feeReserve: 1, total: index % 2 === 0 ? 3 : 2 },
        });
    });
    // 11 valid items with a 1-day window (2 credits), 9 with an hour (1); a 1-credit fee reserve each.
    expect(quote.totalCredits).toEqual({ creation: 31, feeReserve: 20, total: 51 });
    expect(quote).toMatchObject({ availableCredits: 100000, covered: true });
    expect(await merchantShop.invoiceCount()).toBe(0);
    expect(await merchantShop.billing()).toMatchObject({ creditBalance: 100000, reservedCredits: 0 });
  });

  it('checks the payTo and return-origin rules of the workspace too', async () => {
    const merchantShop = await shop();
    const quote = await merchantShop.quote([
      { amount: '1', payTo: '0x000000000000000000000000000000000000dead' },
      { amount: '1', successUrl: 'https://elsewhere.example/ok' },
    ]);
    expect(quote.json().items.map((item: { error?: { code: string } }) => item.error?.code)).toEqual([
      'pay_to_mismatch',
      'return_origin_not_allowed',
    ]);
  });
});

describe('POST /invoice-batches', () => {
  it('creates the valid items of a mixed batch of 25, reports the invalid ones, and charges only for what it created', async () => {
    const merchantShop = await shop();
    const { items, invalidAt } = mixedItems();
    const response = await merchantShop.batch('mixed-batch-1', items);
    expect(response.statusCode).toBe(200);
    const { results } = response.json<{ results: InvoiceResult[] }>();
    expect(results).toHaveLength(25);
    results.forEach((result, index) => {
      if (invalidAt.has(index))
        expect(result, `item ${index}`).toEqual({ error: { code: invalidAt.get(index), message: expect.any(String) } });
      else expect(result.invoice, `item ${index}`).toMatchObject({ amount: `${index + 1}.500000`, status: 'open' });
    });
    const numbers = results.flatMap((result) => (result.invoice ? [result.invoice.number] : []));
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, index) => `INV-${String(index + 1).padStart(6, '0')}`));
    expect(await merchantShop.invoiceCount()).toBe(20);
    expect(await merchantShop.billing()).toMatchObject({ creditBalance: 100000 - 31, reservedCredits: 20 });
  });

  it('answers a retry with the same invoices, charging nothing again; another batch under the key gets 422', async () => {
    const merchantShop = await shop();
    const { items } = mixedItems();
    const first = (await merchantShop.batch('retry-batch-1', items)).json<{ results: InvoiceResult[] }>();
    const billing = await merchantShop.billing();
    const again = await merchantShop.batch('retry-batch-1', items);
    expect(again.statusCode).toBe(200);
    const ids = (results: InvoiceResult[]) => results.map((result) => result.invoice?.id ?? result.error?.code);
    expect(ids(again.json<{ results: InvoiceResult[] }>().results)).toEqual(ids(first.results));
    expect(await merchantShop.billing()).toEqual(billing);
    expect(await merchantShop.invoiceCount()).toBe(20);

    const other = await merchantShop.batch('retry-batch-1', [{ amount: '7' }]);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('refuses a batch above its budget before creating anything, leaving the key unused', async () => {
    const merchantShop = await shop();
    const items = [{ amount: '1' }, { amount: '2', expiresIn: 432000 }];
    const refused = await merchantShop.batch('budget-batch-1', items, 5);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'budget_exceeded',
      totalCredits: { creation: 4, feeReserve: 2, total: 6 },
      requestId: expect.any(String),
    });
    expect(await merchantShop.invoiceCount()).toBe(0);
    expect((await merchantShop.batch('budget-batch-1', items, 6)).statusCode).toBe(200);
    expect(await merchantShop.invoiceCount()).toBe(2);
  });

  it('tries items refused for lack of credits again on retry, once credits are added', async () => {
    const merchantShop = await shop();
    await sql`UPDATE credit_accounts SET balance = 5 WHERE workspace_id = ${merchantShop.workspaceId}`.execute(
      database.db,
    );
    const items = Array.from({ length: 4 }, (_, index) => ({ amount: `${index + 1}` }));
    const first = (await merchantShop.batch('credits-batch-1', items)).json<{ results: InvoiceResult[] }>().results;
    expect(first.map((result) => result.invoice?.number ?? result.error?.code)).toEqual([
      'INV-000001',
      'INV-000002',
      'insufficient_credits',
      'insufficient_credits',
    ]);

    await sql`UPDATE credit_accounts SET balance = balance + 100 WHERE workspace_id = ${merchantShop.workspaceId}`.execute(
      database.db,
    );
    const second = (await merchantShop.batch('credits-batch-1', items)).json<{ results: InvoiceResult[] }>().results;
    expect(second.map((result) => result.invoice?.number)).toEqual([
      'INV-000001',
      'INV-000002',
      'INV-000003',
      'INV-000004',
    ]);
    expect(second.slice(0, 2).map((result) => result.invoice?.id)).toEqual(
      first.slice(0, 2).map((result) => result.invoice?.id),
    );
    expect(await merchantShop.invoiceCount()).toBe(4);
  });

  it('refuses a request with no items, more than 25, or no Idempotency-Key as a whole', async () => {
    const merchantShop = await shop();
    expect((await merchantShop.batch('empty-batch', [])).statusCode).toBe(400);
    expect((await merchantShop.batch('big-batch-1', Array(26).fill({ amount: '1' }))).statusCode).toBe(400);
    const noKey = await app.inject({
      method: 'POST',
      url: `/w/${merchantShop.workspaceId}/v1/invoice-batches`,
      headers: { authorization: `Bearer ${merchantShop.apiKey}` },
      payload: { items: [{ amount: '1' }], budgetCredits: 10 },
    });
    expect(noKey.json()).toMatchObject({ code: 'idempotency_key_missing' });
    expect(await merchantShop.invoiceCount()).toBe(0);
  });
});

describe('retained batch bindings', () => {
  it(
    'keeps 1,000 batches: the 1,001st evicts the oldest, whose retry is refused instead of creating twice',
    { timeout: 120_000 },
    async () => {
      const merchantShop = await shop();
      const key = (index: number) => `retained-${String(index).padStart(4, '0')}`;
      for (let index = 1; index <= 1001; index++) {
        const response = await merchantShop.batch(key(index), [{ amount: '1', externalId: key(index) }]);
        expect(response.statusCode).toBe(200);
      }
      const evicted = await merchantShop.batch(key(1), [{ amount: '1', externalId: key(1) }]);
      expect(evicted.statusCode).toBe(409);
      expect(evicted.json()).toMatchObject({
        code: 'batch_binding_evicted',
        message: expect.stringContaining('invoice-search'),
      });

      const kept = await merchantShop.batch(key(2), [{ amount: '1', externalId: key(2) }]);
      expect(kept.json<{ results: InvoiceResult[] }>().results[0]!.invoice?.number).toBe('INV-000002');
      expect(await merchantShop.invoiceCount()).toBe(1001);
      // The evicted batch's item key now expires like any idempotency key (within 7 days); the retained ones do not.
      const { rows } = await sql<{ key: string }>`
      SELECT key FROM idempotency_keys WHERE workspace_id = ${merchantShop.workspaceId} AND key LIKE 'batch %' AND expires_at < now() + interval '8 days'`.execute(
        database.db,
      );
      expect(rows.map((row) => row.key)).toEqual([`batch ${key(1)} #0`]);
    },
  );
});

describe('batch permissions', () => {
  it('needs both invoices:create and invoices:read, for the batch and for its quote', async () => {
    for (const permissions of [['invoices:create'], ['invoices:read']]) {
      const limited = await merchant(app, permissions);
      const headers = { authorization: `Bearer ${limited.apiKey}`, 'idempotency-key': `perm-${permissions[0]}` };
      for (const url of ['/invoice-batches', '/invoice-batches/quote']) {
        const response = await app.inject({
          method: 'POST',
          url: `/w/${limited.workspaceId}/v1${url}`,
          headers,
          payload: { items: [{ amount: '1' }], budgetCredits: 10 },
        });
        expect({ url, status: response.statusCode, code: response.json().code }).toEqual({
          url,
          status: 403,
          code: 'permission_denied',
        });
      }
    }
  });
});
