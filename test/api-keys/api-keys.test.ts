import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ORIGIN, createKey, createTestApp, createWorkspace, merchant, newWallet, signIn } from '../support/app.js';

const { app, database } = await createTestApp();

async function workspaceOf() {
  const cookie = await signIn(app, newWallet());
  return { cookie, workspaceId: await createWorkspace(app, cookie) };
}

/** Moves a workspace's key creations back in time, as if they had happened earlier. */
async function age(workspaceId: string, interval: string) {
  await sql`UPDATE api_keys SET created_at = created_at - ${interval}::interval WHERE workspace_id = ${workspaceId}`.execute(
    database.db,
  );
}

describe('API keys', () => {
  it('shows the secret once, with a recognisable prefix, and never again', async () => {
    const { cookie, workspaceId } = await workspaceOf();
    const created = await createKey(app, cookie, workspaceId, ['billing:read']);
    expect(created.statusCode).toBe(201);
    const key = created.json();
    expect(key.secret).toMatch(/^isk_[0-9a-z]{26}_[0-9a-z]{52}$/);
    expect(key.secret.startsWith(key.prefix)).toBe(true);
    expect(key).toMatchObject({ status: 'active', permissions: ['billing:read'], lastUsedAt: null });
    expect(created.headers['cache-control']).toBe('no-store');

    const listed = await app.inject({ method: 'GET', url: `/portal/api/w/${workspaceId}/keys`, headers: { cookie } });
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(key.secret.slice(key.prefix.length));
    expect(listed.json().keys[0]).not.toHaveProperty('secret');
  });

  it('stores only a hash: the secret appears nowhere in the database', async () => {
    const { apiKey } = await merchant(app, ['billing:read']);
    const secretPart = apiKey.split('_')[2]!;
    const dump = await sql<{ dump: string }>`
      SELECT string_agg(t::text, E'\n') AS dump FROM (
        SELECT row_to_json(k)::text AS t FROM api_keys k
        UNION ALL SELECT row_to_json(w)::text FROM workspaces w
        UNION ALL SELECT row_to_json(s)::text FROM sessions s
        UNION ALL SELECT row_to_json(j)::text FROM jobs j
        UNION ALL SELECT row_to_json(l)::text FROM credit_ledger l
      ) rows`.execute(database.db);
    const text = dump.rows[0]!.dump;
    expect(text).toContain('isk_'); // the display prefix is there, so the dump is real
    expect(text).not.toContain(secretPart);
    expect(text).not.toContain(apiKey);
  });

  it('refuses a 6th active key and allows one after a revocation', async () => {
    const { cookie, workspaceId } = await workspaceOf();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await createKey(app, cookie, workspaceId, ['billing:read'], `key ${i}`);
      expect(response.statusCode).toBe(201);
      ids.push(response.json().id);
      if (i % 3 === 2) await age(workspaceId, '2 hours');
    }
    await age(workspaceId, '2 hours');
    const sixth = await createKey(app, cookie, workspaceId, ['billing:read']);
    expect(sixth.statusCode).toBe(409);
    expect(sixth.json()).toMatchObject({ code: 'api_key_limit_reached', requestId: expect.any(String) });

    const revoked = await app.inject({
      method: 'DELETE',
      url: `/portal/api/w/${workspaceId}/keys/${ids[0]}`,
      headers: { cookie, origin: ORIGIN },
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().status).toBe('revoked');
    expect((await createKey(app, cookie, workspaceId, ['billing:read'])).statusCode).toBe(201);
  });

  it('refuses the 4th creation within an hour with Retry-After', async () => {
    const { cookie, workspaceId } = await workspaceOf();
    for (let i = 0; i < 3; i++)
      expect((await createKey(app, cookie, workspaceId, ['billing:read'])).statusCode).toBe(201);
    const fourth = await createKey(app, cookie, workspaceId, ['billing:read']);
    expect(fourth.statusCode).toBe(429);
    expect(fourth.json().code).toBe('api_key_creation_rate_limited');
    expect(Number(fourth.headers['retry-after'])).toBeGreaterThan(3000);
    expect(Number(fourth.headers['retry-after'])).toBeLessThanOrEqual(3600);
  });

  it('refuses the 11th creation within a day, counting revoked keys', async () => {
    const { cookie, workspaceId } = await workspaceOf();
    for (let i = 0; i < 10; i++) {
      const response = await createKey(app, cookie, workspaceId, ['billing:read']);
      expect(response.statusCode).toBe(201);
      await app.inject({
        method: 'DELETE',
        url: `/portal/api/w/${workspaceId}/keys/${response.json().id}`,
        headers: { cookie, origin: ORIGIN },
      });
      if (i % 3 === 2) await age(workspaceId, '61 minutes');
    }
    await age(workspaceId, '61 minutes');
    const eleventh = await createKey(app, cookie, workspaceId, ['billing:read']);
    expect(eleventh.statusCode).toBe(429);
    expect(eleventh.json().message).toContain('10 per day');
  });

  it('creates at most 3 keys from 10 concurrent requests', async () => {
    const { cookie, workspaceId } = await workspaceOf();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createKey(app, cookie, workspaceId, ['billing:read'], `k${i}`)),
    );
    expect(responses.filter((response) => response.statusCode === 201)).toHaveLength(3);
    expect(responses.filter((response) => response.statusCode === 429)).toHaveLength(7);
  });

  it('refuses unknown permissions and unknown fields', async () => {
    const { cookie, workspaceId } = await workspaceOf();
    const unknownPermission = await createKey(app, cookie, workspaceId, ['invoices:delete']);
    expect(unknownPermission.statusCode).toBe(400);
    expect(unknownPermission.json().code).toBe('invalid_request');
    const extra = await app.inject({
      method: 'POST',
      url: `/portal/api/w/${workspaceId}/keys`,
      headers: { cookie, origin: ORIGIN },
      payload: { name: 'x', permissions: ['billing:read'], payTo: '0x0000000000000000000000000000000000000001' },
    });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().details[0]).toEqual({ path: 'payTo', message: 'is not a known field' });
  });

  it('refuses a key recipient other than the workspace wallet with 403, and accepts the wallet itself', async () => {
    const wallet = newWallet();
    const cookie = await signIn(app, wallet);
    const workspaceId = await createWorkspace(app, cookie);
    const create = (recipient: string) =>
      app.inject({
        method: 'POST',
        url: `/portal/api/w/${workspaceId}/keys`,
        headers: { cookie, origin: ORIGIN },
        payload: { name: 'x', permissions: ['billing:read'], recipient },
      });
    const other = await create('0x0000000000000000000000000000000000000001');
    expect({ status: other.statusCode, code: other.json().code }).toEqual({
      status: 403,
      code: 'key_recipient_mismatch',
    });
    const listed = await app.inject({ method: 'GET', url: `/portal/api/w/${workspaceId}/keys`, headers: { cookie } });
    expect(listed.json().keys).toEqual([]);
    const own = await create(wallet.address);
    expect(own.statusCode).toBe(201);
    expect(own.json().recipient.toLowerCase()).toBe(wallet.address.toLowerCase());
  });

  it("hides another wallet's workspace from the portal", async () => {
    const owner = await workspaceOf();
    const stranger = await signIn(app, newWallet());
    const listing = await app.inject({
      method: 'GET',
      url: `/portal/api/w/${owner.workspaceId}/keys`,
      headers: { cookie: stranger },
    });
    expect(listing.statusCode).toBe(404);
    const creation = await createKey(app, stranger, owner.workspaceId, ['billing:read']);
    expect(creation.statusCode).toBe(404);
  });

  it('refuses portal writes without a matching Origin', async () => {
    const { cookie, workspaceId } = await workspaceOf();
    for (const headers of [{ cookie }, { cookie, origin: 'https://evil.example' }]) {
      const response = await app.inject({
        method: 'POST',
        url: `/portal/api/w/${workspaceId}/keys`,
        headers,
        payload: { name: 'x', permissions: ['billing:read'] },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('origin_mismatch');
    }
    const count = await database.db
      .selectFrom('api_keys')
      .where('workspace_id', '=', workspaceId)
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(0n);
  });

  it('requires a session for the portal API', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal/api/workspaces' });
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('session_required');
  });

  it('grants new workspaces their credits and binds them to the signing wallet', async () => {
    const wallet = newWallet();
    const cookie = await signIn(app, wallet);
    const created = await app.inject({
      method: 'POST',
      url: '/portal/api/workspaces',
      headers: { cookie, origin: ORIGIN },
      payload: { name: 'Coffee' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ name: 'Coffee', wallet: wallet.address.toLowerCase() });
    const listed = await app.inject({ method: 'GET', url: '/portal/api/workspaces', headers: { cookie } });
    expect(listed.json().workspaces.map((w: { id: string }) => w.id)).toEqual([created.json().id]);
    const ledger = await database.db
      .selectFrom('credit_ledger')
      .selectAll()
      .where('workspace_id', '=', created.json().id)
      .execute();
    expect(ledger).toMatchObject([{ kind: 'grant', balance_change: 100n }]);
  });
});
