import { describe, expect, it } from 'vitest';
import { PORTAL_API_PREFIX, PORTAL_WORKSPACE_PREFIX } from '../../src/main/app.js';
import { workspaceRouteTable } from '../../src/main/route-table.js';
import { ORIGIN, createTestApp, createWorkspace, newWallet, signIn } from '../support/app.js';

const { app, services } = await createTestApp();

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const WORKSPACE_PATH = toOpenApiPath(`${PORTAL_API_PREFIX}${PORTAL_WORKSPACE_PREFIX}`);

/**
 * Every portal route on a workspace, from the route table app.ts registers into the ownership scope.
 * Each route brings its own valid example request, so a new route is covered without editing this file.
 */
const table = workspaceRouteTable(services);
const routes = [...table.portalOnly, ...table.shared].map((route) => {
  const path = `${WORKSPACE_PATH}${toOpenApiPath(route.url)}`;
  return { method: route.method, path, key: `${route.method} ${path}`, example: route.example ?? {} };
});

/** What the app actually serves, from the OpenAPI document. */
const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
  paths: Record<string, Record<string, unknown>>;
}>();
const published = Object.entries(document.paths)
  .filter(([path]) => path.startsWith(PORTAL_API_PREFIX))
  .flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({
      method: method.toUpperCase() as Method,
      path,
      key: `${method.toUpperCase()} ${path}`,
    })),
  );

const owner = await signIn(app, newWallet());
const ownersWorkspace = await createWorkspace(app, owner, 'Owner shop');
const stranger = await signIn(app, newWallet());
await createWorkspace(app, stranger, 'Stranger shop');

function toOpenApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** Ids of things that do not exist (inv_000…, key_000…): the guards must answer before anything is looked up. */
function urlOf(path: string, query = ''): string {
  return (
    path
      .replace('{workspaceId}', ownersWorkspace)
      .replace(/\{(\w+)\}/g, (_, name: string) => `${name.slice(0, 3).toLowerCase()}_${'0'.repeat(26)}`) + query
  );
}

function call(route: (typeof routes)[number], headers: Record<string, string>) {
  const { body, query } = route.example;
  return app.inject({
    method: route.method,
    url: urlOf(route.path, query),
    headers: { origin: ORIGIN, ...headers },
    ...(body !== undefined && { payload: body }),
  });
}

describe('portal API route table', () => {
  it('is what the app serves on a workspace: no route there bypasses the ownership scope', () => {
    const onWorkspace = published.filter(
      (operation) => operation.path === WORKSPACE_PATH || operation.path.startsWith(`${WORKSPACE_PATH}/`),
    );
    expect(onWorkspace.map((operation) => operation.key).sort()).toEqual(routes.map((route) => route.key).sort());
    expect(new Set(routes.map((route) => route.key)).size).toBe(routes.length);
  });

  it.each(published)('refuses $key without a session: 401 session_required', async (operation) => {
    const response = await app.inject({
      method: operation.method,
      url: urlOf(operation.path),
      headers: { origin: ORIGIN },
    });
    expect({ status: response.statusCode, code: response.json().code }).toEqual({
      status: 401,
      code: 'session_required',
    });
  });
});

describe.each(routes)('portal API $key', (route) => {
  it('refuses a request without a session: 401 session_required', async () => {
    const response = await call(route, {});
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      code: 'session_required',
      message: expect.any(String),
      requestId: response.headers['x-request-id'],
    });
  });

  it("answers another wallet's workspace as if it did not exist: 404 not_found", async () => {
    const response = await call(route, { cookie: stranger });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      code: 'not_found',
      message: 'No such workspace for this wallet.',
      requestId: response.headers['x-request-id'],
    });
  });

  if (route.method !== 'GET') {
    it('refuses a change without the service Origin: 403 origin_mismatch', async () => {
      const response = await call(route, { cookie: owner, origin: 'https://evil.example' });
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('origin_mismatch');
    });
  }

  it("lets the owner through the guards, with the route's example accepted as input", async () => {
    const response = await call(route, { cookie: owner });
    // Every answer is JSON but a download's (the invoices' CSV), which only a success can be.
    const json = String(response.headers['content-type']).startsWith('application/json');
    if (!json) expect(response.statusCode, response.body).toBe(200);
    const body = json ? response.json() : {};
    expect(response.statusCode, response.body).not.toBe(401);
    expect(response.statusCode, response.body).toBeLessThan(500);
    expect(body.code).not.toBe('origin_mismatch');
    expect(body.message).not.toBe('No such workspace for this wallet.');
    // Input refusals (schema or field rules) carry details; the example must not earn one.
    expect(body.details, response.body).toBeUndefined();
  });
});
