import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { itemKey } from '../../src/modules/invoice-batches/batch.js';
import { createTestApp, merchant } from '../support/app.js';

const { app, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '10000000' });

interface ItemResult {
  invoice?: { id: string; number: string; externalId: string | null };
  error?: { code: string; message: string };
}

/** Items as JSON text: what a client sends, including what JSON.stringify cannot (deep nesting). */
const item = (externalId: string) => `{"amount":"1","externalId":"${externalId}"}`;
const nest = (depth: number) => '['.repeat(depth) + '1' + ']'.repeat(depth);
const nestObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

async function shop() {
  const owner = await merchant(app, ['invoices:create', 'invoices:read']);
  const headers = { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' };
  const base = `/w/${owner.workspaceId}/v1`;
  const count = async (query: ReturnType<typeof sql<{ n: bigint }>>) =>
    Number((await query.execute(database.db)).rows[0]!.n);
  const send = (key: string, payload: string) =>
    app.inject({
      method: 'POST',
      url: `${base}/invoice-batches`,
      headers: { ...headers, 'idempotency-key': key },
      payload,
    });
  return {
    send,
    batch: (key: string, items: string[], envelope = '"budgetCredits":100') =>
      send(key, `{"items":[${items.join(',')}],${envelope}}`),
    quote: (items: string[]) =>
      app.inject({
        method: 'POST',
        url: `${base}/invoice-batches/quote`,
        headers,
        payload: `{"items":[${items.join(',')}]}`,
      }),
    invoiceCount: () => count(sql`SELECT count(*) AS n FROM invoices WHERE workspace_id = ${owner.workspaceId}`),
    itemKeys: () => count(sql`SELECT count(*) AS n FROM idempotency_keys WHERE workspace_id = ${owner.workspaceId}`),
    hasItemKey: async (batchKey: string, index: number) =>
      (await count(
        sql`SELECT count(*) AS n FROM idempotency_keys WHERE workspace_id = ${owner.workspaceId} AND key = ${itemKey(batchKey, index)}`,
      )) === 1,
  };
}

function results(response: Awaited<ReturnType<typeof app.inject>>): ItemResult[] {
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ results: ItemResult[] }>().results;
}

function expectWholeRefusal(response: Awaited<ReturnType<typeof app.inject>>) {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.json()).toEqual({
    code: 'invalid_request',
    message: expect.any(String),
    requestId: response.headers['x-request-id'],
    details: [{ path: expect.any(String), message: expect.any(String) }],
  });
}

describe('a batch item holding what no field accepts fails alone', () => {
  it('fails the item with NUL in its externalId, naming the field, creates the others, and stores nothing of it', async () => {
    const owner = await shop();
    const items = [item('order-0'), item('order-1'), item('order-2'), item('order\\u0000-3'), item('order-4')];
    const first = results(await owner.batch('nul-batch-1', items));
    expect(first[3]).toEqual({
      error: { code: 'invalid_request', message: expect.stringContaining('items[3].externalId') },
    });
    expect(first.map((result) => result.invoice?.externalId ?? result.error?.code)).toEqual([
      'order-0',
      'order-1',
      'order-2',
      'invalid_request',
      'order-4',
    ]);
    expect(await owner.invoiceCount()).toBe(4);
    // The refused item never got as far as its idempotency key, the first row it would write.
    expect(await owner.hasItemKey('nul-batch-1', 3)).toBe(false);
    expect(await owner.itemKeys()).toBe(4);

    const retry = results(await owner.batch('nul-batch-1', items));
    expect(retry).toEqual(first);
    expect(await owner.invoiceCount()).toBe(4);
  });

  it('fails an item with an unpaired surrogate, in a value or in a field name, the same way', async () => {
    const owner = await shop();
    const answer = results(
      await owner.batch('surrogate-batch-1', [
        item('\\ud800'),
        '{"amount":"1","ext\\u0000":"x"}',
        '"\\udc00"',
        item('fine'),
      ]),
    );
    expect(answer.map((result) => result.error?.message.split(' ')[0] ?? result.invoice?.externalId)).toEqual([
      'items[0].externalId',
      'items[1].ext\ufffd',
      'items[2]',
      'fine',
    ]);
    expect(answer.slice(0, 3).every((result) => result.error?.code === 'invalid_request')).toBe(true);
    expect(await owner.invoiceCount()).toBe(1);
  });

  it('fails an item nested 20,000 deep alone, answers its retry the same, and tells another deep item apart', async () => {
    const owner = await shop();
    const items = [item('before'), nest(20_000), `{"amount":"1","externalId":${nestObjects(20_000)}}`, item('after')];
    const response = await owner.batch('deep-batch-1', items);
    const first = results(response);
    expect(first.map((result) => result.invoice?.externalId ?? result.error?.code)).toEqual([
      'before',
      'invalid_request',
      'invalid_request',
      'after',
    ]);
    expect(first[1]!.error!.message).toMatch(/^items\[1\]\[0\]\S* is nested deeper than 32 levels/);
    expect(first[2]!.error!.message).toMatch(/^items\[2\]\.externalId\.a\S* is nested deeper than 32 levels/);
    expect(await owner.invoiceCount()).toBe(2);

    expect(results(await owner.batch('deep-batch-1', items))).toEqual(first);
    expect(await owner.invoiceCount()).toBe(2);

    // The batch's hash covers the deep item: the same key with another one is another batch.
    const other = await owner.batch('deep-batch-1', [item('before'), nest(20_001), items[2]!, item('after')]);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('holds an item to the body’s depth limit of 32 levels, counted from the body', async () => {
    const owner = await shop();
    // body (1) > items (2) > item (3) > x (4…): 29 arrays under x end at level 32, 30 go past it.
    const answer = results(
      await owner.batch('depth-edge-1', [`{"amount":"1","x":${nest(29)}}`, `{"amount":"1","x":${nest(30)}}`]),
    );
    expect(answer.map((result) => result.error?.code)).toEqual(['unknown_field', 'invalid_request']);
    expect(answer[1]!.error!.message).toContain('nested deeper than 32 levels');
  });

  it('reports such items in the quote as invalid and prices the others', async () => {
    const owner = await shop();
    const response = await owner.quote([item('ok'), item('a\\u0000'), nest(20_000)]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      items: [
        { valid: true, credits: { total: 2 } },
        { valid: false, error: { code: 'invalid_request', message: expect.stringContaining('items[1].externalId') } },
        { valid: false, error: { code: 'invalid_request', message: expect.stringContaining('nested deeper') } },
      ],
      totalCredits: { total: 2 },
    });
  });
});

describe('a batch whose envelope is broken is refused whole', () => {
  it('refuses NUL in a top-level key or value, and a top-level field nested 20,000 deep, creating nothing', async () => {
    const owner = await shop();
    expectWholeRefusal(await owner.batch('envelope-1', [item('a')], '"budgetCredits":100,"x\\u0000":1'));
    expectWholeRefusal(await owner.batch('envelope-2', [item('a')], '"budgetCredits":"\\u0000"'));
    expectWholeRefusal(await owner.batch('envelope-3', [item('a')], `"budgetCredits":${nest(20_000)}`));
    expect(await owner.invoiceCount()).toBe(0);
  });

  it('refuses a body that is not an object, or whose items are not an array, however deep, before any item is looked at', async () => {
    const owner = await shop();
    for (const [index, payload] of [
      nest(20_000),
      `{"items":${nestObjects(20_000)},"budgetCredits":100}`,
      `{"items":{"a":"\\u0000"},"budgetCredits":100}`,
    ].entries()) {
      expectWholeRefusal(await owner.send(`not-a-batch-${index}`, payload));
    }
    expect(await owner.invoiceCount()).toBe(0);
  });
});
