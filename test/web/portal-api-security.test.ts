import { describe, expect, it } from 'vitest';
import { ORIGIN, createTestApp, createWorkspace, newWallet, signIn } from '../support/app.js';

const { app } = await createTestApp();

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A valid request body for every workspace route of the portal API, so that a refusal below comes from
 * the session or ownership check and not from validation. A route missing here fails the first test.
 */
const BODIES: Readonly<Record<string, object | undefined>> = {
  'PATCH /portal/api/w/{workspaceId}': { name: 'Renamed' },
  'GET /portal/api/w/{workspaceId}/keys': undefined,
  'POST /portal/api/w/{workspaceId}/keys': { name: 'server', permissions: ['invoices:read'] },
  'DELETE /portal/api/w/{workspaceId}/keys/{keyId}': undefined,
  'GET /portal/api/w/{workspaceId}/invoices': undefined,
  'POST /portal/api/w/{workspaceId}/invoices': { amount: '1,5' },
  'GET /portal/api/w/{workspaceId}/invoices/{invoiceId}': undefined,
  'POST /portal/api/w/{workspaceId}/invoices/{invoiceId}/cancel': undefined,
  'POST /portal/api/w/{workspaceId}/invoices/{invoiceId}/renew': {},
  'GET /portal/api/w/{workspaceId}/invoices/{invoiceId}/timeline': undefined,
  'GET /portal/api/w/{workspaceId}/invoices/{invoiceId}/receipt': undefined,
  'GET /portal/api/w/{workspaceId}/invoice-search': undefined,
  'GET /portal/api/w/{workspaceId}/checkout-settings': undefined,
  'PUT /portal/api/w/{workspaceId}/checkout-settings': { origins: ['https://shop.example.com'] },
  'GET /portal/api/w/{workspaceId}/webhook': undefined,
  'PUT /portal/api/w/{workspaceId}/webhook': { enabled: false },
  'POST /portal/api/w/{workspaceId}/webhook/test': undefined,
  'POST /portal/api/w/{workspaceId}/webhook/retry': { eventId: '1' },
  'GET /portal/api/w/{workspaceId}/billing': undefined,
  'GET /portal/api/w/{workspaceId}/issues': undefined,
  'GET /portal/api/w/{workspaceId}/dashboard': undefined,
};
const QUERIES: Readonly<Record<string, string>> = { '/portal/api/w/{workspaceId}/invoice-search': '?q=INV-1' };

/** Every portal route on a workspace, from the OpenAPI document: a new one is covered without editing this list. */
const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
const operations = Object.entries(document.paths)
  .filter(([path]) => path.startsWith('/portal/api/w/{workspaceId}'))
  .flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method: method.toUpperCase() as Method, path, key: `${method.toUpperCase()} ${path}` })));

const owner = await signIn(app, newWallet());
const ownersWorkspace = await createWorkspace(app, owner, 'Owner shop');
const stranger = await signIn(app, newWallet());
await createWorkspace(app, stranger, 'Stranger shop');

function call(operation: (typeof operations)[number], headers: Record<string, string>) {
  const url =
    operation.path
      .replace('{workspaceId}', ownersWorkspace)
      .replace('{invoiceId}', 'inv_00000000000000000000000000')
      .replace('{keyId}', 'key_00000000000000000000000000') + (QUERIES[operation.path] ?? '');
  const body = BODIES[operation.key];
  return app.inject({ method: operation.method, url, headers: { origin: ORIGIN, ...headers }, ...(body !== undefined && { payload: body }) });
}

describe('portal API on a workspace', () => {
  it('lists a valid request for every route', () => {
    expect(operations.length).toBeGreaterThanOrEqual(Object.keys(BODIES).length);
    for (const operation of operations) expect(Object.keys(BODIES), `no request for ${operation.key}`).toContain(operation.key);
  });

  describe.each(operations)('$key', (operation) => {
    it('refuses a request without a session: 401 session_required', async () => {
      const response = await call(operation, {});
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ code: 'session_required', message: expect.any(String), requestId: response.headers['x-request-id'] });
    });

    it("answers another wallet's workspace as if it did not exist: 404 not_found", async () => {
      const response = await call(operation, { cookie: stranger });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ code: 'not_found', message: 'No such workspace for this wallet.', requestId: response.headers['x-request-id'] });
    });

    if (operation.method !== 'GET') {
      it('refuses a change without the service Origin: 403 origin_mismatch', async () => {
        const response = await call(operation, { cookie: owner, origin: 'https://evil.example' });
        expect(response.statusCode).toBe(403);
        expect(response.json().code).toBe('origin_mismatch');
      });
    }
  });
});
