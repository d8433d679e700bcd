import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Executor } from '../../src/db/database.js';
import { JobRunner } from '../../src/jobs/index.js';
import { jobHandlers } from '../../src/main/jobs.js';
import { CreditPurchaseService } from '../../src/modules/credit-purchases/credit-purchase.service.js';
import { systemClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import type { CreditPurchaseId } from '../../src/modules/credit-purchases/index.js';
import { createTestApp, merchant } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import { fundGas, signCheckoutAuthorization } from '../support/checkout.js';

/**
 * A purchase and its latest payment attempt are written together (the engine's transaction), so a read
 * of a purchase shows them as one moment left them: never a `processing` purchase beside the attempt
 * that paid it. The settlement is made to commit between the two reads, by the real engine.
 */
const chain = await createTestChain();
const { app, services, database, config } = await createTestApp(
  { API_RATE_LIMIT_PER_MINUTE: '1000000', NEW_WORKSPACE_CREDITS: '3' },
  systemClock,
  chain,
);
const db = database.db;

/**
 * Runs a job runner until the purchase reads `paid` in the database, then stops it. No runner runs
 * otherwise: a submitted authorization stays `processing` until a read lets the engine settle it.
 */
async function settleNow(purchaseId: string): Promise<void> {
  const runner = new JobRunner({
    db,
    connection: database.connection,
    handlers: jobHandlers(services),
    pollIntervalMs: 50,
  });
  await runner.start();
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await sql<{ status: string }>`
        SELECT status FROM credit_purchases WHERE id = ${purchaseId}`.execute(db);
      if (rows[0]?.status === 'paid') return;
      if (Date.now() > deadline) throw new Error(`purchase ${purchaseId} was not paid: ${rows[0]?.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await runner.stop();
  }
}

/** The service as the app builds it, whose attempt reads first let a settlement of `purchaseId` commit. */
function serviceSettlingBeforeAttempts(purchaseId: string): CreditPurchaseService {
  let settled = false;
  return new CreditPurchaseService({
    db,
    clock: systemClock,
    packages: config.creditPackages,
    operatorWallet: config.operatorWallet,
    networks: chain.networks,
    publicBaseUrl: config.publicBaseUrl,
    attempts: async (executor: Executor, workspaceId: WorkspaceId, ids: readonly CreditPurchaseId[]) => {
      if (!settled) {
        settled = true;
        await settleNow(purchaseId);
      }
      return services.payments.purchaseAttempts(executor, workspaceId, ids);
    },
  });
}

async function processingPurchase() {
  const shop = await merchant(app, ['billing:read', 'billing:write']);
  const call = (method: 'GET' | 'POST', path: string, payload?: object) =>
    app.inject({
      method,
      url: `/w/${shop.workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': `snapshot-${Math.random()}` },
      ...(payload && { payload }),
    });
  const created = await call('POST', '/credit-purchases', { packageId: 'starter' });
  expect(created.statusCode).toBe(201);
  const purchase = created.json<{
    id: string;
    recipient: string;
    price: string;
    payment: { authorizationNonce: `0x${string}` };
  }>();
  const payer = await chain.payer(100_000_000n);
  await fundGas(chain.rpcUrl, payer.address);
  const body = await signCheckoutAuthorization(
    payer,
    { recipient: purchase.recipient, amount: purchase.price },
    purchase.payment.authorizationNonce,
  );
  const submitted = await call('POST', `/credit-purchases/${purchase.id}/authorizations`, body);
  expect(submitted.statusCode).toBe(202);
  return { workspaceId: shop.workspaceId as WorkspaceId, id: purchase.id as CreditPurchaseId };
}

describe('a credit purchase read while its payment settles', () => {
  it('by id: the purchase and its last payment as they were before the settlement, then both after it', async () => {
    const purchase = await processingPurchase();
    const seen = await serviceSettlingBeforeAttempts(purchase.id).get(purchase.workspaceId, purchase.id);
    expect(seen).toMatchObject({ status: 'processing', lastPayment: { status: 'processing' } });
    const after = await services.creditPurchases.get(purchase.workspaceId, purchase.id);
    expect(after).toMatchObject({ status: 'paid', lastPayment: { status: 'succeeded' } });
  });

  it('in a list: the same', async () => {
    const purchase = await processingPurchase();
    const { purchases } = await serviceSettlingBeforeAttempts(purchase.id).list(purchase.workspaceId, { limit: 10 });
    expect(purchases).toEqual([
      expect.objectContaining({
        id: purchase.id,
        status: 'processing',
        lastPayment: expect.objectContaining({ status: 'processing' }),
      }),
    ]);
    const after = await services.creditPurchases.list(purchase.workspaceId, { limit: 10 });
    expect(after.purchases).toEqual([
      expect.objectContaining({
        id: purchase.id,
        status: 'paid',
        lastPayment: expect.objectContaining({ status: 'succeeded' }),
      }),
    ]);
  });
});
