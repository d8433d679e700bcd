import { describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { PERMISSIONS } from '../../src/modules/api-keys/api-key.js';
import { decodePaymentHeader } from '../../src/modules/x402/x402.js';
import { BASE_URL, createTestApp, merchant } from '../support/app.js';

const demo = {
  chainId: 84532,
  rpcUrl: 'http://127.0.0.1:1',
  merchant: privateKeyToAccount(generatePrivateKey()),
  buyer: privateKeyToAccount(generatePrivateKey()),
};
const { app, database } = await createTestApp({}, undefined, undefined, demo);
const shop = await merchant(app, [...PERMISSIONS]);
const auth = { authorization: `Bearer ${shop.apiKey}` };

async function expectInvalid(response: Awaited<ReturnType<typeof app.inject>>, path?: string) {
  expect(response.statusCode).toBe(400);
  const body = response.json();
  expect(body).toMatchObject({
    code: 'invalid_request',
    message: expect.any(String),
    requestId: response.headers['x-request-id'],
  });
  expect(response.headers['x-api-version']).toBe('1.1.0');
  if (path) expect(body.details[0].path).toBe(path);
}

const invoiceCount = async () =>
  Number(
    (
      await database.db
        .selectFrom('invoices')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', shop.workspaceId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('one input boundary', () => {
  it('refuses NUL in a path id before the API key is looked up, even with a made-up key', async () => {
    await expectInvalid(
      await app.inject({
        method: 'GET',
        url: '/w/%00/v1/billing',
        headers: { authorization: 'Bearer isk_key_000_secret' },
      }),
      'path parameter workspaceId',
    );
  });

  it('refuses NUL in a public checkout link and in a query parameter', async () => {
    await expectInvalid(
      await app.inject({ method: 'GET', url: `/w/${shop.workspaceId}/i/%00`, headers: { accept: 'application/json' } }),
    );
    await expectInvalid(
      await app.inject({ method: 'GET', url: `/w/${shop.workspaceId}/v1/invoice-search?q=a%00b`, headers: auth }),
      'query parameter q',
    );
  });

  it('refuses NUL or an unpaired surrogate in a JSON string, naming the field, and creates nothing', async () => {
    const create = (payload: string) =>
      app.inject({
        method: 'POST',
        url: `/w/${shop.workspaceId}/v1/invoices`,
        headers: { ...auth, 'idempotency-key': `nul-${Math.random()}`, 'content-type': 'application/json' },
        payload,
      });
    await expectInvalid(await create('{"amount":"1","externalId":"order\\u0000 1"}'), 'externalId');
    await expectInvalid(await create('{"amount":"1","externalId":"\\ud800"}'), 'externalId');
    await expectInvalid(await create('{"amount":"1","ext\\u0000":"x"}'));
    expect(await invoiceCount()).toBe(0);
  });

  // A batch item nested this deep fails alone instead (test/invoice-batches/unstorable-items.test.ts).
  it('refuses a body nested 20,000 deep with a 400 before hashing or creating anything', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const response = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices`,
      headers: { ...auth, 'idempotency-key': 'deep-invoice-1', 'content-type': 'application/json' },
      payload: `{"amount":"1","externalId":${deep}}`,
    });
    await expectInvalid(response);
    expect(await invoiceCount()).toBe(0);
  });

  it('accepts strings with paired surrogates (emoji) and other unicode', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices`,
      headers: { ...auth, 'idempotency-key': 'emoji-order-1' },
      payload: { amount: '1', externalId: 'commande 🧾 für Zoë' },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().externalId).toBe('commande 🧾 für Zoë');
  });
});

describe('credentials in URLs and transport security', () => {
  it('refuses a key or a Bearer value in any query parameter, on every route, even with a valid header', async () => {
    for (const url of [
      `/w/${shop.workspaceId}/v1/billing?x=Bearer%20${shop.apiKey}`,
      `/w/${shop.workspaceId}/v1/billing?note=see-${shop.apiKey}`,
      `/w/${shop.workspaceId}/i/inv_00000000000000000000000000?k=${shop.apiKey}`,
      `/portal/api/workspaces?token=Bearer%20abc`,
    ]) {
      const response = await app.inject({ method: 'GET', url, headers: { ...auth, accept: 'application/json' } });
      expect({ url, status: response.statusCode, code: response.json().code }).toEqual({
        url,
        status: 400,
        code: 'api_key_in_query',
      });
    }
  });

  it('sends Strict-Transport-Security only when the public base URL is https', async () => {
    const { app: secure } = await createTestApp({ PUBLIC_BASE_URL: 'https://pay.example.com' });
    expect((await secure.inject({ method: 'GET', url: '/healthz' })).headers['strict-transport-security']).toBe(
      'max-age=31536000; includeSubDomains',
    );
    expect((await secure.inject({ method: 'GET', url: '/nowhere' })).headers['strict-transport-security']).toBe(
      'max-age=31536000; includeSubDomains',
    );
    expect((await app.inject({ method: 'GET', url: '/healthz' })).headers['strict-transport-security']).toBeUndefined();
  });
});

describe('decoders that never throw on client input', () => {
  it('reads an x402 header whose accepted.network is an object as naming no network', () => {
    const header = Buffer.from(
      JSON.stringify({
        x402Version: 2,
        accepted: { network: { toString: 1 } },
        payload: {
          signature: '0x12',
          authorization: {
            from: `0x${'11'.repeat(20)}`,
            to: `0x${'22'.repeat(20)}`,
            value: '1',
            validAfter: '0',
            validBefore: '9',
            nonce: `0x${'33'.repeat(32)}`,
          },
        },
      }),
    ).toString('base64');
    expect(decodePaymentHeader(header, 2)).toMatchObject({ chainId: undefined });
  });

  it('answers malformed demo-wallet parameters with 400, not a crash', async () => {
    const rpc = (method: string, params: unknown[]) =>
      app.inject({
        method: 'POST',
        url: '/demo-wallet/rpc',
        headers: { origin: BASE_URL },
        payload: { role: 'buyer', method, params },
      });
    for (const [method, params] of [
      ['personal_sign', [{}]],
      ['personal_sign', ['not hex']],
      ['eth_signTypedData_v4', [demo.buyer.address, '{']],
      [
        'eth_signTypedData_v4',
        [demo.buyer.address, '{"types":{"A":[{"name":"x","type":"nonsense"}]},"primaryType":"A","message":{}}'],
      ],
      ['eth_sendTransaction', [{}]],
      ['eth_sendTransaction', [{ to: `0x${'11'.repeat(20)}`, value: 'lots' }]],
    ] as const) {
      const response = await rpc(method, [...params]);
      expect({ method, status: response.statusCode, code: response.json().code }).toEqual({
        method,
        status: 400,
        code: 'invalid_request',
      });
    }
  });
});

describe('empty bodies sent as JSON', () => {
  it('accepts an empty body with a JSON content type where the body is optional', async () => {
    const created = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices`,
      headers: { ...auth, 'idempotency-key': 'empty-body-1' },
      payload: { amount: '1' },
    });
    const path = `/w/${shop.workspaceId}/v1/invoices/${created.json().id}`;
    const json = { ...auth, 'content-type': 'application/json' };
    const renewed = await app.inject({ method: 'POST', url: `${path}/renew`, headers: json, payload: '' });
    expect(renewed.statusCode, renewed.body).toBe(200);
    expect(renewed.json().linkVersion).toBe(2);
    const cancelled = await app.inject({ method: 'POST', url: `${path}/cancel`, headers: json, payload: '' });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const test = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/webhook/test`,
      headers: json,
      payload: '',
    });
    expect(test.json().code).not.toBe('invalid_json');
  });

  it('still answers invalid_json where a body is required', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices`,
      headers: { ...auth, 'idempotency-key': 'empty-body-2', 'content-type': 'application/json' },
      payload: '',
    });
    expect({ status: response.statusCode, code: response.json().code }).toEqual({ status: 400, code: 'invalid_json' });
  });
});
