import { expect, it } from 'vitest';
import { createTestApp, merchant } from '../support/app.js';

// 60 a minute: bursts of 10, then one a second.
const { app } = await createTestApp({ CHECKOUT_RATE_LIMIT_PER_MINUTE: '60', API_RATE_LIMIT_PER_MINUTE: '1000000' });

it('limits the public checkout endpoints per client IP: 429 with Retry-After, other clients unaffected', async () => {
  const shop = await merchant(app, ['invoices:create']);
  const path = `/w/${shop.workspaceId}/i/inv_00000000000000000000000000`;
  for (let i = 0; i < 10; i += 1) {
    const request =
      i % 2 === 0
        ? { method: 'GET' as const, url: path }
        : { method: 'POST' as const, url: `${path}/transactions`, payload: {} };
    expect((await app.inject({ ...request, remoteAddress: '203.0.113.7' })).statusCode).not.toBe(429);
  }
  for (const request of [
    { method: 'GET' as const, url: path },
    { method: 'POST' as const, url: `${path}/authorizations`, payload: {} },
  ]) {
    const limited = await app.inject({ ...request, remoteAddress: '203.0.113.7' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json()).toMatchObject({ code: 'rate_limited', requestId: limited.headers['x-request-id'] });
  }
  expect((await app.inject({ method: 'GET', url: path, remoteAddress: '203.0.113.8' })).statusCode).toBe(404);
  // The merchant API has its own limit, per key.
  const created = await app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/v1/invoices`,
    headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': 'rate-limit-1' },
    payload: { amount: '1' },
    remoteAddress: '203.0.113.7',
  });
  expect(created.statusCode).toBe(201);
});

it('limits the x402 endpoint per client IP as well', async () => {
  const shop = await merchant(app, ['invoices:create']);
  const url = `/w/${shop.workspaceId}/x402/inv_00000000000000000000000000`;
  const statuses: number[] = [];
  for (let i = 0; i < 12; i += 1)
    statuses.push((await app.inject({ method: 'GET', url, remoteAddress: '203.0.113.9' })).statusCode);
  expect(statuses.slice(0, 10)).toEqual(Array(10).fill(404));
  expect(statuses.slice(10)).toEqual([429, 429]);
});
