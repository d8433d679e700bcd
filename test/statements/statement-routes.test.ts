import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { ORIGIN, createKey, createTestApp, merchant, merchantApi } from '../support/app.js';

const clock = new ManualClock();
const { app } = await createTestApp({}, clock);
const shop = await merchant(app, ['billing:read', 'payments:read']);
const stranger = await merchant(app, ['billing:read', 'payments:read']);
const thisMonth = clock.now().toISOString().slice(0, 7);
const call = merchantApi(app, shop.workspaceId, shop.apiKey);

function portalGet(cookie: string | undefined, workspaceId: string, query = '') {
  return app.inject({
    method: 'GET',
    url: `/portal/api/w/${workspaceId}/statement${query}`,
    headers: { origin: ORIGIN, ...(cookie && { cookie }) },
  });
}

describe('GET /statement', () => {
  it.each(['2026-13', '2026-00', '2026-3', '26-03', '2026-03-01', '1969-12', 'March', '', '2026-03 '])(
    'refuses month=%j with 400 invalid_request naming the parameter',
    async (month) => {
      const response = await call('GET', `/statement?month=${encodeURIComponent(month)}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining('month'),
        requestId: response.headers['x-request-id'],
        details: [{ path: 'month', message: expect.any(String) }],
      });
    },
  );

  it('refuses a month that has not begun, and says which is the latest', async () => {
    const now = clock.now();
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
    const response = await call('GET', `/statement?month=${next}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_request', details: [{ path: 'month' }] });
    expect(response.json<{ message: string }>().message).toContain(thisMonth);
  });

  it('answers the current month when none is given, and the last instant of a month still belongs to it', async () => {
    const current = await call('GET', '/statement');
    expect(current.statusCode).toBe(200);
    expect(current.json()).toMatchObject({ month: thisMonth, final: false });
    const lastInstant = new Date(Date.UTC(2026, 1, 28, 23, 59, 59, 999));
    clock.set(lastInstant);
    expect((await call('GET', '/statement')).json()).toMatchObject({ month: '2026-02', final: false });
    expect((await call('GET', '/statement?month=2026-03')).statusCode).toBe(400);
    clock.advance(1);
    expect((await call('GET', '/statement?month=2026-02')).json()).toMatchObject({ final: true });
    expect((await call('GET', '/statement?month=2026-03')).json()).toMatchObject({ final: false });
    clock.set(new Date());
  });

  it('needs a key that reads both billing and payments', async () => {
    // Two more keys: key creation allows three an hour per workspace.
    for (const permissions of [
      ['billing:read', 'invoices:read'],
      ['payments:read', 'invoices:read'],
    ]) {
      const created = await createKey(app, shop.cookie, shop.workspaceId, permissions, 'partial');
      expect(created.statusCode).toBe(201);
      const key = created.json<{ secret: string }>();
      const response = await merchantApi(app, shop.workspaceId, key.secret)('GET', '/statement');
      expect({ status: response.statusCode, code: response.json().code }).toEqual({
        status: 403,
        code: 'permission_denied',
      });
    }
    expect((await merchantApi(app, shop.workspaceId, '')('GET', '/statement')).statusCode).toBe(401);
    const foreign = await merchantApi(app, shop.workspaceId, stranger.apiKey)('GET', '/statement');
    expect({ status: foreign.statusCode, code: foreign.json().code }).toEqual({ status: 401, code: 'invalid_api_key' });
  });
});

describe('GET /portal/api/w/:workspaceId/statement', () => {
  it("answers the owner, with the workspace's name for the printed page", async () => {
    const response = await portalGet(shop.cookie, shop.workspaceId, '?month=2026-01');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      workspace: { id: shop.workspaceId, name: 'Shop' },
      month: '2026-01',
      final: true,
    });
  });

  it("refuses another wallet's workspace as if it did not exist, and a request without a session", async () => {
    const foreign = await portalGet(stranger.cookie, shop.workspaceId);
    expect({ status: foreign.statusCode, code: foreign.json().code }).toEqual({ status: 404, code: 'not_found' });
    const anonymous = await portalGet(undefined, shop.workspaceId);
    expect({ status: anonymous.statusCode, code: anonymous.json().code }).toEqual({
      status: 401,
      code: 'session_required',
    });
  });

  it('refuses a bad month as the API does', async () => {
    const response = await portalGet(shop.cookie, shop.workspaceId, '?month=2026-1');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'invalid_request', details: [{ path: 'month' }] });
  });
});
