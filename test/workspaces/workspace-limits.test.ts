import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/main/app.js';
import { createServices } from '../../src/main/services.js';
import { ManualClock } from '../../src/shared/clock.js';
import { ORIGIN, createTestApp, newWallet, signIn } from '../support/app.js';

const GRANT = 100;
const { app, config, database } = await createTestApp({ NEW_WORKSPACE_CREDITS: String(GRANT) });
// A second server process on the same database: it shares nothing with the first but PostgreSQL.
const other = await buildApp(createServices(config, database.db, new ManualClock()), { logger: false });

function create(cookie: string, name: string, target: FastifyInstance = app) {
  return target.inject({
    method: 'POST',
    url: '/portal/api/workspaces',
    headers: { cookie, origin: ORIGIN },
    payload: { name },
  });
}

async function balancesOf(wallet: string) {
  const rows = await database.db
    .selectFrom('workspaces')
    .innerJoin('credit_accounts', 'credit_accounts.workspace_id', 'workspaces.id')
    .select(['workspaces.id', 'credit_accounts.balance'])
    .where('workspaces.wallet_address', '=', wallet.toLowerCase())
    .orderBy('workspaces.created_at')
    .execute();
  return rows.map((row) => Number(row.balance));
}

describe('workspaces per wallet', () => {
  it('grants credits to the first workspace only and refuses the 21st with 409 workspace_limit_reached', async () => {
    expect(config.maxWorkspacesPerWallet).toBe(20);
    const wallet = newWallet();
    const cookie = await signIn(app, wallet);
    for (let i = 1; i <= 20; i++) expect((await create(cookie, `Shop ${i}`)).statusCode).toBe(201);
    const refused = await create(cookie, 'Shop 21');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'workspace_limit_reached',
      message: expect.stringMatching(/at most 20/),
      requestId: refused.headers['x-request-id'],
    });
    expect(await balancesOf(wallet.address)).toEqual([GRANT, ...Array<number>(19).fill(0)]);
    // Another wallet is not affected, and its first workspace gets the grant.
    const stranger = newWallet();
    expect((await create(await signIn(app, stranger), 'Elsewhere')).statusCode).toBe(201);
    expect(await balancesOf(stranger.address)).toEqual([GRANT]);
  });

  it('never exceeds the limit, nor grants twice, when creations race on two server processes', async () => {
    const wallet = newWallet();
    const cookie = await signIn(app, wallet);
    const statuses = await Promise.all(
      Array.from({ length: 26 }, (_, i) =>
        create(cookie, `Race ${i}`, i % 2 ? app : other).then((response) => response.statusCode),
      ),
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(20);
    expect(statuses.filter((status) => status === 409)).toHaveLength(6);
    const balances = await balancesOf(wallet.address);
    expect(balances).toHaveLength(20);
    expect(balances.filter((balance) => balance === GRANT)).toHaveLength(1);
    expect(balances.reduce((sum, balance) => sum + balance, 0)).toBe(GRANT);
  });
});
