import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/main/app.js';
import { createServices } from '../../src/main/services.js';
import { ManualClock } from '../../src/shared/clock.js';
import { BASE_URL, GENEROUS_LIMITS, ORIGIN, createTestApp, newWallet, signIn } from '../support/app.js';

const GRANT = 100;
const PER_DAY = 2;
const env = { NEW_WORKSPACE_CREDITS: String(GRANT), FREE_GRANTS_PER_IP_PER_DAY: String(PER_DAY) };
const { app, database } = await createTestApp(env);
// A second server process on the same database, behind one proxy: it shares nothing with the first but
// PostgreSQL, and takes the client address from X-Forwarded-For.
const proxied = await buildApp(
  createServices(
    loadConfig({ PUBLIC_BASE_URL: BASE_URL, ...GENEROUS_LIMITS, ...env, TRUST_PROXY: '1' }),
    database.db,
    new ManualClock(),
  ),
  { logger: false },
);
afterAll(() => proxied.close());

/** Signs a new wallet in and creates its first workspace from `address`; answers the workspace id. */
async function firstWorkspaceFrom(address: string, target: FastifyInstance = app, forwardedFor?: string) {
  const cookie = await signIn(app, newWallet());
  return createFrom(cookie, address, target, forwardedFor);
}

async function createFrom(cookie: string, address: string, target: FastifyInstance = app, forwardedFor?: string) {
  const response = await target.inject({
    method: 'POST',
    url: '/portal/api/workspaces',
    remoteAddress: address,
    headers: { cookie, origin: ORIGIN, ...(forwardedFor && { 'x-forwarded-for': forwardedFor }) },
    payload: { name: 'Shop' },
  });
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string }>().id;
}

async function grantOf(workspaceId: string) {
  const row = await database.db
    .selectFrom('credit_ledger')
    .innerJoin('credit_accounts', 'credit_accounts.workspace_id', 'credit_ledger.workspace_id')
    .select(['credit_ledger.balance_change', 'credit_ledger.reason', 'credit_accounts.balance'])
    .where('credit_ledger.workspace_id', '=', workspaceId)
    .where('credit_ledger.kind', '=', 'grant')
    .executeTakeFirstOrThrow();
  expect(row.balance).toBe(row.balance_change);
  return { credits: Number(row.balance_change), reason: row.reason };
}

const LIMITED = /address it was created from has had its free grants for today/;

describe('free grants per client address and day', () => {
  it(`grants ${PER_DAY} first workspaces an address a day; the next is created without credits, its ledger saying why`, async () => {
    const granted = [await firstWorkspaceFrom('203.0.113.7'), await firstWorkspaceFrom('203.0.113.7')];
    for (const id of granted) expect(await grantOf(id)).toEqual({ credits: GRANT, reason: 'new workspace' });
    const third = await firstWorkspaceFrom('203.0.113.7');
    expect(await grantOf(third)).toEqual({ credits: 0, reason: expect.stringMatching(LIMITED) });
    // Another address has its own allowance.
    expect((await grantOf(await firstWorkspaceFrom('203.0.113.8'))).credits).toBe(GRANT);
  });

  it("counts only grants: a wallet's later workspaces take nothing from its address's allowance", async () => {
    const cookie = await signIn(app, newWallet());
    expect((await grantOf(await createFrom(cookie, '198.51.100.1'))).credits).toBe(GRANT);
    for (let i = 0; i < 3; i++) {
      expect((await grantOf(await createFrom(cookie, '198.51.100.1'))).reason).toMatch(/once per wallet/);
    }
    expect((await grantOf(await firstWorkspaceFrom('198.51.100.1'))).credits).toBe(GRANT);
    expect((await grantOf(await firstWorkspaceFrom('198.51.100.1'))).credits).toBe(0);
  });

  it('counts an IPv6 client by its /64 network', async () => {
    expect((await grantOf(await firstWorkspaceFrom('2001:db8:5:6::1'))).credits).toBe(GRANT);
    expect((await grantOf(await firstWorkspaceFrom('2001:db8:5:6:ffff::2'))).credits).toBe(GRANT);
    expect((await grantOf(await firstWorkspaceFrom('2001:db8:5:6::3'))).credits).toBe(0);
    expect((await grantOf(await firstWorkspaceFrom('2001:db8:5:7::1'))).credits).toBe(GRANT);
  });

  it('takes the client address through TRUST_PROXY, and holds across processes creating at once', async () => {
    // Eight wallets at once from one client, half through the proxied process (the proxy's own address
    // differing each time), half directly.
    const ids = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2 ? firstWorkspaceFrom(`10.0.0.${i}`, proxied, '192.0.2.50') : firstWorkspaceFrom('192.0.2.50', app),
      ),
    );
    const grants = await Promise.all(ids.map(grantOf));
    expect(grants.filter((grant) => grant.credits === GRANT)).toHaveLength(PER_DAY);
    expect(grants.filter((grant) => grant.credits === 0)).toHaveLength(8 - PER_DAY);
    // The proxies' addresses were not counted: each still has its allowance.
    expect((await grantOf(await firstWorkspaceFrom('10.0.0.1'))).credits).toBe(GRANT);
  });

  it('grants again once the day-long window has ended', async () => {
    await firstWorkspaceFrom('203.0.113.9');
    await firstWorkspaceFrom('203.0.113.9');
    expect((await grantOf(await firstWorkspaceFrom('203.0.113.9'))).credits).toBe(0);
    const window = await database.db
      .selectFrom('rate_limit_counters')
      .select(sql<number>`extract(epoch from window_ends - now())`.as('seconds'))
      .where('subject', '=', '203.0.113.9')
      .executeTakeFirstOrThrow();
    expect(Number(window.seconds)).toBeGreaterThan(86_000);
    await sql`UPDATE rate_limit_counters SET window_ends = now() WHERE subject = '203.0.113.9'`.execute(database.db);
    expect((await grantOf(await firstWorkspaceFrom('203.0.113.9'))).credits).toBe(GRANT);
  });
});
