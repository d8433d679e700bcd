import { describe, expect, it } from 'vitest';
import { ORIGIN, createTestApp, merchant } from '../support/app.js';

const { app } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000' });
const shop = await merchant(app, ['invoices:create', 'invoices:read']);
const MESSAGE =
  'amount must be a positive USDC amount with a dot as decimal separator and at most 6 decimals, such as "12.50".';
let keys = 0;

function post(path: string, payload: object) {
  return app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/v1${path}`,
    headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': `amount-message-${++keys}` },
    payload,
  });
}

const schedule = { every: 'month', startAt: new Date(Date.now() + 86_400_000).toISOString() };

// Refused by the body schema (a pattern, a type, a length, a missing field) or by the rules (zero).
const AMOUNTS: [string, unknown][] = [
  ['letters', 'abc'],
  ['seven decimals', '1.1234567'],
  ['a comma', '12,50'],
  ['zero', '0'],
  ['a number', 5],
  ['41 characters', '1'.repeat(41)],
];

describe('every refusal of an amount reads the same', () => {
  it.each(AMOUNTS)('POST /invoices with %s', async (_name, amount) => {
    const response = await post('/invoices', { amount });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ code: 'invalid_amount', message: MESSAGE, requestId: expect.any(String) });
  });

  it('POST /invoices without an amount', async () => {
    expect((await post('/invoices', {})).json()).toMatchObject({ code: 'invalid_amount', message: MESSAGE });
  });

  it.each(AMOUNTS)('an invoice batch item with %s', async (_name, amount) => {
    const response = await post('/invoice-batches', { items: [{ amount }], budgetCredits: 10 });
    expect(response.statusCode).toBe(200);
    expect(response.json().results).toEqual([{ error: { code: 'invalid_amount', message: MESSAGE } }]);
  });

  it.each([
    ['letters', 'abc'],
    ['seven decimals', '1,1234567'],
    ['zero', '0'],
  ])('the portal form with %s', async (_name, amount) => {
    const response = await app.inject({
      method: 'POST',
      url: `/portal/api/w/${shop.workspaceId}/invoices`,
      headers: { cookie: shop.cookie, origin: ORIGIN },
      payload: { amount },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_amount', message: MESSAGE });
  });

  it.each([
    ['letters', 'abc'],
    ['zero', '0'],
  ])("an automation's template with %s", async (_name, amount) => {
    const response = await post('/automations', { name: 'Rent', template: { amount }, schedule });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_amount', message: MESSAGE });
  });

  it('the API document shows the same message', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).body;
    expect(document).not.toMatch(/amount must match pattern/);
    expect(document).toContain(JSON.stringify(MESSAGE).slice(1, -1));
  });
});
