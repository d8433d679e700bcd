import { describe, expect, it } from 'vitest';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant } from '../support/app.js';

const { app, services } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000' });
const shop = await merchant(app, ['invoices:create', 'settings:write']);
const auth = { authorization: `Bearer ${shop.apiKey}` };

function putOrigins(origins: unknown) {
  return app.inject({
    method: 'PUT',
    url: `/w/${shop.workspaceId}/v1/checkout-settings`,
    headers: auth,
    payload: { origins } as object,
  });
}

function createWithSuccessUrl(successUrl: string, key: string) {
  return app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/v1/invoices`,
    headers: { ...auth, 'idempotency-key': key },
    payload: { amount: '1', successUrl },
  });
}

describe('PUT /checkout-settings', () => {
  it('stores exact https origins, normalised', async () => {
    const response = await putOrigins(['https://Shop.Example.com', 'https://pay.example.org:443']);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ origins: ['https://shop.example.com', 'https://pay.example.org'] });
  });

  it('accepts ten origins and refuses eleven', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => `https://shop${i}.example.com`);
    expect((await putOrigins(ten)).statusCode).toBe(200);
    const eleven = await putOrigins([...ten, 'https://shop10.example.com']);
    expect(eleven.statusCode).toBe(400);
    expect(eleven.json().code).toBe('invalid_origin');
  });

  it.each([
    ['a wildcard', 'https://*.example.com'],
    ['credentials', 'https://user:pw@shop.example.com'],
    ['a path', 'https://shop.example.com/checkout'],
    ['a trailing slash', 'https://shop.example.com/'],
    ['a query', 'https://shop.example.com?x=1'],
    ['another port', 'https://shop.example.com:8443'],
    ['http', 'http://shop.example.com'],
    ['no scheme', 'shop.example.com'],
    ['a bare host without a dot', 'https://localhost'],
    ['an empty string', ''],
  ])('refuses %s', async (_name, origin) => {
    const response = await putOrigins(['https://fine.example.com', origin]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_origin', requestId: expect.any(String) });
  });

  it('refuses duplicates, also when spelled differently', async () => {
    const response = await putOrigins(['https://shop.example.com', 'https://SHOP.example.com:443']);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toContain('twice');
  });

  it('removing an origin affects only invoices created afterwards', async () => {
    expect((await putOrigins(['https://shop.example.com'])).statusCode).toBe(200);
    const before = await createWithSuccessUrl('https://shop.example.com/thanks', 'origin-before-1');
    expect(before.statusCode).toBe(201);
    expect((await putOrigins([])).statusCode).toBe(200);
    const after = await createWithSuccessUrl('https://shop.example.com/thanks', 'origin-after-1');
    expect(after.statusCode).toBe(400);
    expect(after.json().code).toBe('return_origin_not_allowed');
    // The link issued before keeps its return URL.
    const earlier = await services.invoices.get(shop.workspaceId as WorkspaceId, before.json().id);
    expect(earlier.successUrl).toBe('https://shop.example.com/thanks');
  });
});

describe('return addresses on this machine (local development)', () => {
  it('with WEBHOOK_ALLOW_PRIVATE (the local demo default), takes http origins on localhost and loopback, and invoices returning there', async () => {
    const local = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_ALLOW_PRIVATE: 'true' });
    const localShop = await merchant(local.app, ['invoices:create', 'settings:write']);
    const headers = { authorization: `Bearer ${localShop.apiKey}` };
    const put = (origins: string[]) =>
      local.app.inject({
        method: 'PUT',
        url: `/w/${localShop.workspaceId}/v1/checkout-settings`,
        headers,
        payload: { origins },
      });
    const create = (successUrl: string, key: string) =>
      local.app.inject({
        method: 'POST',
        url: `/w/${localShop.workspaceId}/v1/invoices`,
        headers: { ...headers, 'idempotency-key': key },
        payload: { amount: '1', successUrl },
      });

    const response = await put(['http://localhost:5173', 'http://127.0.0.1:8080', 'https://shop.example.com']);
    expect(response.json()).toEqual({
      origins: ['http://localhost:5173', 'http://127.0.0.1:8080', 'https://shop.example.com'],
    });
    const created = await create('http://localhost:5173/thanks', 'origin-local-1');
    expect([created.statusCode, created.json().successUrl]).toEqual([201, 'http://localhost:5173/thanks']);
    // Another port of the same machine is another origin.
    expect((await create('http://localhost:3000/thanks', 'origin-local-2')).json().code).toBe(
      'return_origin_not_allowed',
    );
    for (const origin of [
      'http://192.168.1.5:3000',
      'http://localhost:5173/',
      'http://shop.localhost',
      'http://u@localhost',
    ])
      expect([origin, (await put([origin])).json().code]).toEqual([origin, 'invalid_origin']);
  });

  it('without it, refuses them and says what would take them', async () => {
    const refused = await putOrigins(['http://localhost:5173']);
    expect(refused.json()).toMatchObject({
      code: 'invalid_origin',
      message: expect.stringContaining('WEBHOOK_ALLOW_PRIVATE=true'),
    });
    expect((await createWithSuccessUrl('http://localhost:5173/thanks', 'origin-strict-1')).json().code).toBe(
      'invalid_return_url',
    );
  });
});

describe('workspace description', () => {
  it('accepts 2048 UTF-8 bytes through the API and refuses 2049', async () => {
    const ok = await app.inject({
      method: 'PUT',
      url: `/w/${shop.workspaceId}/v1/workspace`,
      headers: auth,
      payload: { description: 'ü'.repeat(1024) },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().description).toBe('ü'.repeat(1024));
    const tooLong = await app.inject({
      method: 'PUT',
      url: `/w/${shop.workspaceId}/v1/workspace`,
      headers: auth,
      payload: { description: `${'ü'.repeat(1024)}x` },
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().code).toBe('description_too_long');
  });

  it('limits the portal to 500 characters', async () => {
    const headers = { cookie: shop.cookie, origin: 'http://localhost:3000' };
    const ok = await app.inject({
      method: 'PATCH',
      url: `/portal/api/w/${shop.workspaceId}`,
      headers,
      payload: { name: 'Renamed', description: '€'.repeat(500) },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ name: 'Renamed', description: '€'.repeat(500) });
    const tooLong = await app.inject({
      method: 'PATCH',
      url: `/portal/api/w/${shop.workspaceId}`,
      headers,
      payload: { description: 'x'.repeat(501) },
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().code).toBe('description_too_long');
  });
});

describe('portal invoices', () => {
  const headers = () => ({ cookie: shop.cookie, origin: 'http://localhost:3000' });

  it('accepts a comma as the decimal separator and shares the numbering with the API', async () => {
    const api = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices`,
      headers: { ...auth, 'idempotency-key': 'numbering-api-1' },
      payload: { amount: '1' },
    });
    const portal = await app.inject({
      method: 'POST',
      url: `/portal/api/w/${shop.workspaceId}/invoices`,
      headers: headers(),
      payload: { amount: '12,50' },
    });
    expect(portal.statusCode).toBe(201);
    expect(portal.json().amount).toBe('12.500000');
    const apiNumber = Number(api.json().number.slice(4));
    expect(portal.json().number).toBe(`INV-${String(apiNumber + 1).padStart(6, '0')}`);
    const listed = await app.inject({
      method: 'GET',
      url: `/portal/api/w/${shop.workspaceId}/invoices`,
      headers: headers(),
    });
    expect(listed.json().invoices[0].id).toBe(portal.json().id);
  });

  it.each(['1.000,50', '1,2,3', 'abc'])('refuses the amount %s', async (amount) => {
    const response = await app.inject({
      method: 'POST',
      url: `/portal/api/w/${shop.workspaceId}/invoices`,
      headers: headers(),
      payload: { amount },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('invalid_amount');
  });
});
