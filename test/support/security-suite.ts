import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/modules/api-keys/api-key.js';
import { ORIGIN, createKey, merchant } from './app.js';
import type { TestDatabase } from './database.js';

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly permission: string;
}

type InjectMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** Every merchant API operation in the OpenAPI document: new routes are covered without editing tests. */
export async function merchantOperations(app: FastifyInstance): Promise<Operation[]> {
  const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
    paths: Record<string, Record<string, { 'x-permission'?: string }>>;
  }>();
  return Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/w/{workspaceId}/v1/'))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        permission: operation['x-permission'] ?? '',
      })),
    );
}

/**
 * The shared security suite (Unkey's runCommonRouteTests): for every merchant route, a request without
 * a key, with a malformed, revoked, blocked or foreign key, without the permission, or with the key in
 * the URL is refused with the right status and code — before any validation or work happens.
 */
export function runSecuritySuite(app: FastifyInstance, database: TestDatabase, operations: readonly Operation[]): void {
  describe.each(operations)('$method $path', (operation) => {
    const setup = (async () => {
      const owner = await merchant(app, [...PERMISSIONS]);
      const foreign = await merchant(app, [...PERMISSIONS]);
      const required = operation.permission.split(' ');
      const others = PERMISSIONS.filter((permission) => !required.includes(permission));
      const lacking = (await createKey(app, owner.cookie, owner.workspaceId, others, 'lacking')).json<{
        secret: string;
      }>().secret;
      const revokedKey = (await createKey(app, owner.cookie, owner.workspaceId, [...PERMISSIONS], 'revoked')).json<{
        id: string;
        secret: string;
      }>();
      await app.inject({
        method: 'DELETE',
        url: `/portal/api/w/${owner.workspaceId}/keys/${revokedKey.id}`,
        headers: { cookie: owner.cookie, origin: ORIGIN },
      });
      // A fourth creation within the hour would hit the creation limit: move the first three back.
      await sql`UPDATE api_keys SET created_at = created_at - interval '2 hours' WHERE workspace_id = ${owner.workspaceId}`.execute(
        database.db,
      );
      const blocked = (await createKey(app, owner.cookie, owner.workspaceId, [...PERMISSIONS], 'blocked')).json<{
        id: string;
        secret: string;
      }>();
      await sql`UPDATE api_keys SET recipient_address = '0x000000000000000000000000000000000000dead' WHERE id = ${blocked.id}`.execute(
        database.db,
      );
      return { owner, foreign, lacking, revoked: revokedKey.secret, blocked: blocked.secret };
    })();

    const call = async (headers: Record<string, string>, query = '') => {
      const { owner } = await setup;
      const url =
        operation.path
          .replace('{workspaceId}', owner.workspaceId)
          .replace(/\{[^}]+\}/g, 'inv_00000000000000000000000000') + query;
      const response = await app.inject({
        method: operation.method as InjectMethod,
        url,
        headers,
        ...(operation.method === 'GET' ? {} : { payload: {} }),
      });
      expect(response.headers['x-request-id']).toBeTruthy();
      expect(response.headers['x-api-version']).toBe('1.1.0');
      return response;
    };

    const expectRefusal = async (headers: Record<string, string>, status: number, code: string, query = '') => {
      const response = await call(headers, query);
      expect({ status: response.statusCode, code: response.json().code }).toEqual({ status, code });
      expect(response.json()).toMatchObject({
        message: expect.any(String),
        requestId: response.headers['x-request-id'],
      });
    };

    it('declares a permission', () => {
      for (const permission of operation.permission.split(' ')) expect(PERMISSIONS).toContain(permission);
    });
    it('refuses a request without a key', () => expectRefusal({}, 401, 'missing_api_key'));
    it('refuses a malformed key', () =>
      expectRefusal({ authorization: 'Bearer isk_not-a-key' }, 401, 'invalid_api_key'));
    it('refuses a non-Bearer scheme', async () =>
      expectRefusal({ authorization: `Basic ${(await setup).owner.apiKey}` }, 401, 'invalid_api_key'));
    it('refuses a revoked key', async () =>
      expectRefusal({ authorization: `Bearer ${(await setup).revoked}` }, 401, 'api_key_revoked'));
    it("refuses another workspace's key", async () =>
      expectRefusal({ authorization: `Bearer ${(await setup).foreign.apiKey}` }, 401, 'invalid_api_key'));
    it('refuses a key without the permission', async () =>
      expectRefusal({ authorization: `Bearer ${(await setup).lacking}` }, 403, 'permission_denied'));
    it('refuses a key in the query string', async () => {
      const { owner } = await setup;
      await expectRefusal(
        { authorization: `Bearer ${owner.apiKey}` },
        400,
        'api_key_in_query',
        `?api_key=${owner.apiKey}`,
      );
      await expectRefusal({}, 400, 'api_key_in_query', `?key=${owner.apiKey}`);
    });
    it('refuses a key bound to another recipient', async () =>
      expectRefusal({ authorization: `Bearer ${(await setup).blocked}` }, 403, 'key_recipient_mismatch'));
    it('lets the right key through the guard', async () => {
      const response = await call({ authorization: `Bearer ${(await setup).owner.apiKey}` });
      expect([401, 403]).not.toContain(response.statusCode);
    });
  });
}
