import { describe, expect, it } from 'vitest';
import { ORIGIN, createTestApp, merchant } from '../support/app.js';

const { app } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000' });
const shop = await merchant(app, ['invoices:create', 'payments:read']);
let keys = 0;

async function invoice(): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/v1/invoices`,
    headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': `cancel-body-${++keys}` },
    payload: { amount: '1' },
  });
  return response.json<{ id: string }>().id;
}

function cancel(id: string, body?: string, via: 'api' | 'portal' = 'api') {
  const api = { url: `/w/${shop.workspaceId}/v1`, headers: { authorization: `Bearer ${shop.apiKey}` } };
  const portal = { url: `/portal/api/w/${shop.workspaceId}`, headers: { cookie: shop.cookie, origin: ORIGIN } };
  const door = via === 'api' ? api : portal;
  return app.inject({
    method: 'POST',
    url: `${door.url}/invoices/${id}/cancel`,
    headers: { ...door.headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { payload: body }),
  });
}

describe('POST /invoices/{id}/cancel', () => {
  it.each(['api', 'portal'] as const)(
    'refuses an unknown body field with 400 unknown_field (%s) and cancels nothing',
    async (via) => {
      const id = await invoice();
      const refused = await cancel(id, '{"reason":"customer asked"}', via);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'unknown_field', details: [{ path: 'reason' }] });
      const read = await app.inject({
        method: 'GET',
        url: `/w/${shop.workspaceId}/v1/invoices/${id}`,
        headers: { authorization: `Bearer ${shop.apiKey}` },
      });
      expect(read.json()).toMatchObject({ status: 'open' });
    },
  );

  it('refuses a body that is not an object', async () => {
    expect((await cancel(await invoice(), '[]')).json()).toMatchObject({ code: 'invalid_request' });
  });

  it.each([
    ['no body', undefined],
    ['an empty body with a JSON content type', ''],
    ['{}', '{}'],
  ])('cancels with %s', async (_name, body) => {
    const response = await cancel(await invoice(), body);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: 'cancelled' });
  });
});
