import { describe, expect, it } from 'vitest';
import { ORIGIN, createTestApp, merchant } from '../support/app.js';

const { app } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '60' });

describe('HTTP platform', () => {
  it('puts X-Request-ID and X-API-Version on successes, errors and 404s', async () => {
    for (const request of [
      { method: 'GET' as const, url: '/healthz' },
      { method: 'GET' as const, url: '/no/such/path' },
      { method: 'POST' as const, url: '/auth/verify', headers: { origin: ORIGIN }, payload: '{' },
    ]) {
      const response = await app.inject({
        ...request,
        headers: { 'content-type': 'application/json', ...request.headers },
      });
      expect(response.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
      expect(response.headers['x-api-version']).toBe('1.1.0');
    }
  });

  it('answers unknown paths with the one error body', async () => {
    const response = await app.inject({ method: 'GET', url: '/w/ws_x/v1/nothing?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      code: 'not_found',
      message: 'No resource at GET /w/ws_x/v1/nothing.',
      requestId: response.headers['x-request-id'],
    });
  });

  it('echoes a sane client request id and replaces an unsafe one', async () => {
    const sane = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'client-123.abc' } });
    expect(sane.headers['x-request-id']).toBe('client-123.abc');
    const unsafe = await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id\u0007<script>' },
    });
    expect(unsafe.headers['x-request-id']).toMatch(/^req_/);
  });

  it('refuses malformed JSON and wrong content types with clear codes', async () => {
    const broken = await app.inject({
      method: 'POST',
      url: '/auth/verify',
      headers: { origin: ORIGIN, 'content-type': 'application/json' },
      payload: '{"message":',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().code).toBe('invalid_json');
    const text = await app.inject({
      method: 'POST',
      url: '/auth/verify',
      headers: { origin: ORIGIN, 'content-type': 'text/plain' },
      payload: 'hi',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().code).toBe('unsupported_media_type');
  });

  it('reports validation problems with details', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/auth/verify',
      headers: { origin: ORIGIN },
      payload: { message: 'x' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 'invalid_request',
      details: [{ path: 'signature', message: 'is required' }],
    });
  });

  it('serves health, readiness and metrics', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('http_request_duration_seconds_bucket');
    expect(metrics.body).toContain('route="/healthz"');
  });

  it('generates an OpenAPI 3.1 document from the route schemas', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.openapi).toBe('3.1.0');
    const billing = document.paths['/w/{workspaceId}/v1/billing'].get;
    expect(billing['x-permission']).toBe('billing:read');
    expect(billing.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(billing.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '429']));
    expect(document.paths['/healthz']).toBeUndefined();
  });

  it('serves a readable API reference at /docs under a strict CSP', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    expect(response.body).toContain('href="/docs/billing#getBilling"');
    expect(response.body).toContain('api_key_creation_rate_limited');
    const billing = await app.inject({ method: 'GET', url: '/docs/billing' });
    expect(billing.statusCode).toBe(200);
    expect(billing.body).toContain('id="getBilling"');
    expect(billing.body).toContain('billing:read');
  });
});

describe('GET /billing', () => {
  it("answers the workspace's credits and maxInvoiceAmount", async () => {
    const { workspaceId, apiKey } = await merchant(app, ['billing:read']);
    const response = await app.inject({
      method: 'GET',
      url: `/w/${workspaceId}/v1/billing`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      creditBalance: 100,
      reservedCredits: 0,
      availableCredits: 100,
      maxInvoiceAmount: '10000.000000',
      tariff: { '3600': 1, '86400': 2, '432000': 3 },
      successFeeCredits: 1,
      firstWorkspaceOfWallet: true,
      packages: [
        { id: 'starter', credits: 100, price: '10.000000', currency: 'USDC' },
        { id: 'growth', credits: 1000, price: '90.000000', currency: 'USDC' },
        { id: 'scale', credits: 10000, price: '800.000000', currency: 'USDC' },
      ],
    });
  });

  it('limits each key to its request rate with 429 and Retry-After', async () => {
    const { workspaceId, apiKey } = await merchant(app, ['billing:read']);
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (let i = 0; i < 12; i++) {
      const response = await app.inject({
        method: 'GET',
        url: `/w/${workspaceId}/v1/billing`,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) {
        retryAfter = response.headers['retry-after'] as string;
        expect(response.json().code).toBe('rate_limited');
      }
    }
    // 60 per minute allows a burst of 10.
    expect(statuses.slice(0, 10).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });
});
