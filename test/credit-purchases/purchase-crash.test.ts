import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { usdcBalance } from '../../src/chain/local-chain.js';
import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/http/app.js';
import { createServices } from '../../src/main/services.js';
import { systemClock } from '../../src/shared/clock.js';
import { BASE_URL, TEST_OPERATOR_WALLET, merchant } from '../support/app.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { createTestDatabase } from '../support/database.js';
import { freePort, startService, type ServiceProcess } from '../support/service-process.js';
import { payV2 } from '../support/x402.js';

const chain = await createControlledChain({ confirmations: 3, blockTimeSeconds: 1 });
const database = await createTestDatabase();
const servicePort = await freePort();
const env = {
  DATABASE_URL: database.url,
  PORT: String(servicePort),
  PUBLIC_BASE_URL: `http://localhost:${servicePort}`,
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'purchase-crash-')),
  NETWORKS: JSON.stringify([chain.networkConfig]),
  RELAYER_PRIVATE_KEY: chain.relayerPrivateKey,
  OPERATOR_WALLET: TEST_OPERATOR_WALLET,
};
const running: ServiceProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((service) => service.stop()));
});

// The workspace side through the same database, in this process: only the service process pays.
const admin = await buildApp(
  createServices(
    loadConfig({ PUBLIC_BASE_URL: BASE_URL, OPERATOR_WALLET: TEST_OPERATOR_WALLET }),
    database.db,
    systemClock,
  ),
  { logger: false },
);
afterAll(() => admin.close());

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const intentsOf = (purchaseId: string) =>
  database.db
    .selectFrom('payment_intents')
    .select(['status', 'tx_hash', 'settlement_raw'])
    .where('credit_purchase_id', '=', purchaseId)
    .execute();
const purchaseRow = (purchaseId: string) =>
  database.db.selectFrom('credit_purchases').selectAll().where('id', '=', purchaseId).executeTakeFirstOrThrow();

it(
  'kill -9 between broadcast and confirmation: after a restart the purchase is paid and credited exactly once',
  { timeout: 60_000 },
  async () => {
    const shop = await merchant(admin, ['billing:read', 'billing:write']);
    const auth = { authorization: `Bearer ${shop.apiKey}` };
    const bought = await admin.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/credit-purchases`,
      headers: { ...auth, 'idempotency-key': 'crash-purchase' },
      payload: { packageId: 'starter' },
    });
    const purchase = bought.json<{ id: string; url: string }>();
    const payer = await chain.payer(10_000_000n);
    // From here on only the test makes blocks: the settlement waits until the test mines.
    await chain.setAutomine(false);
    const first = await startService(env);
    running.push(first);

    const payment = payV2(payer)(`${first.baseUrl}/w/${shop.workspaceId}/x402/credit-purchases/${purchase.id}`).catch(
      (error: unknown) => error,
    );
    const hash = await until('the settlement to be broadcast', async () => {
      const [intent] = await intentsOf(purchase.id);
      const sent = intent?.tx_hash as `0x${string}` | undefined;
      return sent && intent?.settlement_raw && (await chain.knows(sent)) ? sent : undefined;
    });
    await chain.mine(1);
    await first.kill9();
    running.splice(running.indexOf(first), 1);
    expect(await payment).toBeInstanceOf(Error);
    expect((await purchaseRow(purchase.id)).status).toBe('processing');
    expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(0n);
    // A dead worker's lease lapses after 30 s; let it lapse now rather than wait.
    await sql`UPDATE jobs SET locked_until = now() WHERE locked_until > now()`.execute(database.db);

    const second = await startService(env);
    running.push(second);
    chain.startMining(200);
    await until('the purchase to be paid', async () => (await purchaseRow(purchase.id)).status === 'paid');
    await chain.stopMining();

    expect(await intentsOf(purchase.id)).toMatchObject([{ status: 'succeeded', tx_hash: hash }]);
    expect(await usdcBalance(chain.rpcUrl, TEST_OPERATOR_WALLET)).toBe(10_000_000n);
    expect(await chain.transactionCount(chain.relayer)).toBe(1);
    const billing = await admin.inject({ method: 'GET', url: `/w/${shop.workspaceId}/v1/billing`, headers: auth });
    expect(billing.json()).toMatchObject({ creditBalance: 100 + 100 });
    const purchases = await database.db
      .selectFrom('credit_ledger')
      .select(['balance_change', 'reference'])
      .where('workspace_id', '=', shop.workspaceId)
      .where('kind', '=', 'purchase')
      .execute();
    expect(purchases).toEqual([{ balance_change: 100n, reference: purchase.id }]);
  },
);
