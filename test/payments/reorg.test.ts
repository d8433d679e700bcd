import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Hash } from 'viem';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { invoiceOrder, purchaseOrder } from '../../src/modules/payment-engine/index.js';
import { enqueueJob } from '../../src/jobs/index.js';
import { FINALITY_JOB } from '../../src/modules/payment-finality/index.js';
import { waitFor } from '../jobs/support.js';
import { TEST_OPERATOR_WALLET, merchant } from '../support/app.js';
import { createTestChain, jsonRpc } from '../support/chain.js';
import { fundGas, transfer } from '../support/checkout.js';
import { startPayingApp } from '../support/paying-app.js';
import { startTestReceiver } from '../support/webhook-receiver.js';

/** Deeper than any reorganisation below: a payment recorded here is re-checked throughout them. */
const FINALITY_BLOCKS = 20;

const chain = await createTestChain({ confirmations: 1 });
const network = { ...chain.network, finalityBlocks: FINALITY_BLOCKS };
/** The warnings and errors of the runners and the watch, the latest last: a wait that times out shows them. */
const warnings: string[] = [];
const keep = (fields: Record<string, unknown>, message: string) => {
  const err = fields.err instanceof Error ? `: ${fields.err.message}` : '';
  warnings.push(`${new Date().toISOString()} ${message}${err}`);
  if (warnings.length > 20) warnings.shift();
};
const logger = { info() {}, warn: keep, error: keep };
const paying = await startPayingApp(
  { ...chain, networks: [network] },
  { env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, logger },
);
paying.services.log.use(logger);
const db = paying.database.db;
const receiver = await startTestReceiver();
// The network's finality watch, as every start schedules it (the transfer scan is not: payments here are submitted).
await enqueueJob(db, {
  kind: FINALITY_JOB,
  uniqueKey: `${FINALITY_JOB}:${network.name}`,
  payload: { network: network.name },
});

const rpc = <T>(method: string, params: unknown[] = []) => jsonRpc<T>(chain.rpcUrl, method, params);

/**
 * Replaces the blocks from `fromBlock` up to the head by as many new ones (anvil_reorg), with `remine`
 * put back in the second of them. Two blocks more than counted: the block producer may mine meanwhile.
 */
async function reorgFrom(fromBlock: bigint, remine: Hash[] = []): Promise<void> {
  const head = BigInt(await rpc<string>('eth_blockNumber', []));
  const depth = Number(head - fromBlock) + 3;
  await chain.reorganise(
    depth,
    remine.map((raw) => [raw, 1] as const),
  );
}

/** A merchant with a webhook receiver and an invoice paid by a plain transfer, recorded. */
async function paidInvoice(amount: bigint) {
  const shop = await merchant(paying.app, [
    'invoices:create',
    'invoices:read',
    'payments:read',
    'billing:read',
    'webhooks:write',
  ]);
  const headers = { authorization: `Bearer ${shop.apiKey}` };
  const api = `/w/${shop.workspaceId}/v1`;
  const configured = await paying.app.inject({
    method: 'PUT',
    url: `${api}/webhook`,
    headers,
    payload: { endpoint: receiver.url, enabled: true },
  });
  const { secret } = configured.json<{ secret: string }>();
  const created = await paying.app.inject({
    method: 'POST',
    url: `${api}/invoices`,
    headers: { ...headers, 'idempotency-key': `reorg-${amount}` },
    payload: { amount: (Number(amount) / 1e6).toString() },
  });
  const invoice = created.json<{ id: string; payTo: `0x${string}` }>();
  const payer = await chain.payer(amount);
  await fundGas(chain.rpcUrl, payer.address);
  // Its USDC stays in the chain through the reorganisations below, which start at the payment's block.
  await rpc('anvil_mine', ['0x6']);
  const { hash } = await transfer(chain.rpcUrl, payer, invoice.payTo, amount);
  const workspaceId = shop.workspaceId as WorkspaceId;
  const submitted = await paying.services.payments.submitTransaction(workspaceId, invoiceOrder(invoice.id), {
    network,
    txHash: hash,
  });
  const paid = await waitFor(
    () => intentRow(submitted.id).then((row) => (row.status === 'succeeded' ? row : undefined)),
    30_000,
    'the payment to be recorded',
  );
  const get = (path: string) => paying.app.inject({ method: 'GET', url: `${api}${path}`, headers });
  return { shop, secret, invoice, hash, intentId: submitted.id, block: paid.block_number!, get };
}

function intentRow(id: string) {
  return db
    .selectFrom('payment_intents')
    .select(['status', 'block_number', 'block_hash', 'finalized_at', 'tx_hash'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Where the finality watch stood, for a wait that timed out: its job row, the chain's head, the warnings. */
async function watchState(): Promise<string> {
  const job = await db
    .selectFrom('jobs')
    .select(['run_at', 'attempts', 'locked_by', 'locked_until', 'last_error', 'wake_on', 'failed_at'])
    .where('kind', '=', FINALITY_JOB)
    .executeTakeFirst();
  const head = await rpc<string>('eth_blockNumber').catch((error: Error) => error.message);
  return JSON.stringify({ job, head, now: new Date(), warnings });
}

/** waitFor, with the watch's state in the error when it times out. */
async function waitForWatch<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  try {
    return await waitFor(probe, 30_000, what);
  } catch (error) {
    throw new Error(`${(error as Error).message}; the finality watch: ${await watchState()}`);
  }
}

const reverted = (id: string) =>
  waitForWatch(
    () => intentRow(id).then((row) => (row.status === 'reverted' ? row : undefined)),
    'the payment to be reverted',
  );

describe('a recorded payment taken out of the chain by a reorganisation before finalityBlocks', () => {
  it(
    'is reverted: the invoice is payable again, the feed, a signed webhook and GET /issues say so',
    { timeout: 90_000 },
    async () => {
      const paid = await paidInvoice(4_310_000n);
      expect((await paid.get(`/invoices/${paid.invoice.id}`)).json()).toMatchObject({ status: 'paid' });
      expect((await paid.get(`/invoices/${paid.invoice.id}/receipt`)).json()).toMatchObject({
        receiptNumber: expect.stringMatching(/^RCT-\d{6}$/),
      });

      await reorgFrom(paid.block);
      await reverted(paid.intentId);

      expect((await paid.get(`/invoices/${paid.invoice.id}`)).json()).toMatchObject({ status: 'open', paidAt: null });
      // Its receipt no longer proves a payment: voided, and none is shown.
      expect((await paid.get(`/invoices/${paid.invoice.id}/receipt`)).json()).toMatchObject({
        code: 'invoice_not_paid',
      });
      expect((await paid.get(`/payment-intents/${paid.intentId}`)).json()).toMatchObject({ status: 'reverted' });
      const feed = (await paid.get('/changes')).json<{ events: { type: string; paymentIntentId?: string }[] }>();
      const types = feed.events.map((event) => event.type);
      expect(types.slice(types.indexOf('invoice.paid'))).toEqual(
        expect.arrayContaining(['payment_intent.reverted', 'invoice.reopened']),
      );

      const delivery = await waitFor(
        () =>
          receiver.received.find(
            (request) => request.body.includes('"payment_intent.reverted"') && request.body.includes(paid.intentId),
          ),
        30_000,
        'the webhook of the revert',
      );
      const timestamp = String(delivery.headers['x-payment-timestamp']);
      const signature = createHmac('sha256', paid.secret).update(`${timestamp}.${delivery.body}`).digest('hex');
      expect(delivery.headers['x-payment-signature']).toBe(`v1=${signature}`);
      expect(JSON.parse(delivery.body)).toMatchObject({
        type: 'payment_intent.reverted',
        workspaceId: paid.shop.workspaceId,
        data: { paymentIntent: { id: paid.intentId, status: 'reverted' }, invoice: { id: paid.invoice.id } },
      });

      const { issues } = (await paid.get('/issues')).json<{
        issues: { kind: string; severity: string; hint: string }[];
      }>();
      expect(issues[0]).toMatchObject({ kind: 'payment_reverted', severity: 'critical' });
      expect(issues[0]!.hint).toContain(paid.invoice.id);
    },
  );

  it('pays again when the same transaction is mined again in the new chain', { timeout: 90_000 }, async () => {
    const paid = await paidInvoice(4_320_000n);
    const raw = await rpc<Hash>('eth_getRawTransactionByHash', [paid.hash]);

    await reorgFrom(paid.block, [raw]);
    await reverted(paid.intentId);

    const again = await waitFor(
      async () => {
        const rows = await db
          .selectFrom('payment_intents')
          .select(['id', 'status', 'tx_hash', 'block_hash'])
          .where('invoice_id', '=', paid.invoice.id)
          .where('status', '=', 'succeeded')
          .execute();
        return rows[0];
      },
      30_000,
      'the re-mined transaction to pay again',
    );
    expect(again.tx_hash).toBe(paid.hash.toLowerCase());
    expect(again.block_hash).not.toBe((await intentRow(paid.intentId)).block_hash);
    expect((await paid.get(`/invoices/${paid.invoice.id}`)).json()).toMatchObject({ status: 'paid' });
    // Paid again: a new receipt number; the voided one is kept, never reused.
    const receipts = await db
      .selectFrom('receipts')
      .select(['number', 'voided_at'])
      .where('invoice_id', '=', paid.invoice.id)
      .orderBy('number')
      .execute();
    expect(receipts.map((receipt) => receipt.voided_at === null)).toEqual([false, true]);
    const shown = (await paid.get(`/invoices/${paid.invoice.id}/receipt`)).json<{ receiptNumber: string }>();
    expect(shown.receiptNumber).toBe(`RCT-${String(receipts[1]!.number).padStart(6, '0')}`);
  });

  it('takes the credits of a reverted credit purchase back, with a ledger entry', { timeout: 90_000 }, async () => {
    const shop = await merchant(paying.app, ['billing:read']);
    const workspaceId = shop.workspaceId as WorkspaceId;
    const { purchase } = await paying.services.creditPurchases.create(
      workspaceId,
      { packageId: 'starter' },
      { idempotencyKey: 'reorg-purchase', source: 'api' },
    );
    const balance = async () =>
      (
        await db
          .selectFrom('credit_accounts')
          .select('balance')
          .where('workspace_id', '=', workspaceId)
          .executeTakeFirstOrThrow()
      ).balance;
    const before = await balance();
    const payer = await chain.payer(10_000_000n);
    await fundGas(chain.rpcUrl, payer.address);
    const { hash } = await transfer(chain.rpcUrl, payer, TEST_OPERATOR_WALLET, 10_000_000n);
    const submitted = await paying.services.payments.submitTransaction(workspaceId, purchaseOrder(purchase.id), {
      network,
      txHash: hash,
    });
    const paid = await waitFor(
      () => intentRow(submitted.id).then((row) => (row.status === 'succeeded' ? row : undefined)),
      30_000,
      'the purchase to be paid',
    );
    expect(await balance()).toBe(before + 100n);

    await reorgFrom(paid.block_number!);
    await reverted(submitted.id);

    expect(await balance()).toBe(before);
    const ledger = await db
      .selectFrom('credit_ledger')
      .select(['kind', 'balance_change'])
      .where('workspace_id', '=', workspaceId)
      .where('reference', '=', purchase.id)
      .orderBy('seq')
      .execute();
    expect(ledger).toEqual([
      { kind: 'purchase', balance_change: 100n },
      { kind: 'purchase.reverted', balance_change: -100n },
    ]);
    const row = await db
      .selectFrom('credit_purchases')
      .select(['status', 'paid_at'])
      .where('id', '=', purchase.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'open', paid_at: null });
  });
});

it('never reverts a payment deeper than finalityBlocks, and stops re-checking it', { timeout: 120_000 }, async () => {
  const deep = await paidInvoice(4_330_000n);
  await rpc('anvil_mine', [`0x${FINALITY_BLOCKS.toString(16)}`]);
  const final = await waitForWatch(
    () => intentRow(deep.intentId).then((row) => (row.finalized_at ? row : undefined)),
    'the payment to be final',
  );
  expect(final.status).toBe('succeeded');

  // A reorganisation deeper than finalityBlocks takes its block out; a later payment is taken out with it,
  // and the watch reverts that one: it has looked at the chain since, and left the final one alone.
  const later = await paidInvoice(4_340_000n);
  await reorgFrom(deep.block);
  await reverted(later.intentId);
  expect((await intentRow(deep.intentId)).status).toBe('succeeded');
  expect((await deep.get(`/invoices/${deep.invoice.id}`)).json()).toMatchObject({ status: 'paid' });
});
