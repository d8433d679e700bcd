import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createWorkers, scheduleRecurringJobs } from '../../src/main/jobs.js';
import { invoiceOrder } from '../../src/modules/payment-engine/index.js';
import type { ReceivedTransferId } from '../../src/modules/received-transfers/received-transfer.js';
import { systemClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant, type TestApp } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import { fundGas, transfer } from '../support/checkout.js';
import { startTestReceiver } from '../support/webhook-receiver.js';
import { verifyWebhook } from '../../packages/client/src/webhooks.js';

// A real anvil mining a block a second, the service's workers with the scan of every network: plain
// transfers to the workspace wallet, never submitted anywhere.
const chain = await createTestChain();
const receiver = await startTestReceiver();
let webhookSecret = '';
let paying: TestApp;
let shop: Awaited<ReturnType<typeof merchant>>;
const PAID = { timeout: 20_000, interval: 200 };

beforeAll(async () => {
  paying = await createTestApp({ NEW_WORKSPACE_CREDITS: '100000', WEBHOOK_ALLOW_PRIVATE: 'true' }, systemClock, chain);
  const workers = createWorkers(paying.services, paying.database.connection);
  await scheduleRecurringJobs(paying.services);
  await workers.start();
  shop = await merchant(paying.app, [
    'invoices:create',
    'invoices:read',
    'payments:read',
    'payments:write',
    'billing:read',
    'webhooks:write',
  ]);
  webhookSecret = (await api<{ secret: string }>('PUT', '/webhook', { endpoint: receiver.url })).body.secret;
  return () => workers.stop();
});

let keys = 0;
async function api<T = Record<string, unknown>>(method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) {
  const response = await paying.app.inject({
    method,
    url: `/w/${shop.workspaceId}/v1${path}`,
    headers: {
      authorization: `Bearer ${shop.apiKey}`,
      ...(path === '/invoices' && { 'idempotency-key': `scan-key-${++keys}` }),
    },
    ...(payload && { payload }),
  });
  return { status: response.statusCode, body: response.json<T>() };
}

async function openInvoice(amount: string) {
  const { status, body } = await api<{ id: string; payTo: `0x${string}` }>('POST', '/invoices', { amount });
  expect(status, JSON.stringify(body)).toBe(201);
  return body;
}

async function sendFromNewPayer(to: `0x${string}`, amount: bigint) {
  const payer = await chain.payer(amount);
  await fundGas(chain.rpcUrl, payer.address);
  return transfer(chain.rpcUrl, payer, to, amount);
}

const statusOf = async (invoiceId: string) =>
  (await api<{ status: string }>('GET', `/invoices/${invoiceId}`)).body.status;

interface Received {
  id: string;
  status: string;
  reason: string;
  amount: string;
  transactionHash: string;
  invoiceId: string | null;
  paymentIntentId: string | null;
}
async function receivedFor(hash: string): Promise<Received | undefined> {
  const { body } = await api<{ receivedTransfers: Received[] }>('GET', '/received-transfers?limit=200');
  return body.receivedTransfers.find((record) => record.transactionHash === hash);
}

describe('a plain transfer to the workspace wallet', () => {
  it('of exactly one open invoice’s amount pays it by itself, as a submitted hash would', async () => {
    const invoice = await openInvoice('3.21');
    const sent = await sendFromNewPayer(invoice.payTo, 3_210_000n);

    await expect.poll(() => statusOf(invoice.id), PAID).toBe('paid');
    const receipt = await api<{ transactionHash: string; paymentIntentId: string }>(
      'GET',
      `/invoices/${invoice.id}/receipt`,
    );
    expect(receipt.body.transactionHash).toBe(sent.hash);
    const intent = await api<{ method: string; status: string; amountReceived: string; shortfall: null }>(
      'GET',
      `/payment-intents/${receipt.body.paymentIntentId}`,
    );
    expect(intent.body).toMatchObject({ method: 'transaction', status: 'succeeded', amountReceived: '3.210000' });
    // The merchant hears of it as of any payment: the signed webhook.
    await expect
      .poll(
        () =>
          receiver.received
            .map((request) => verifyWebhook(request.body, request.headers, webhookSecret))
            .filter(
              (event) => event.type === 'payment_intent.succeeded' && JSON.stringify(event.data).includes(invoice.id),
            ),
        PAID,
      )
      .toHaveLength(1);
    const events = await paying.database.db
      .selectFrom('events')
      .select('type')
      .where('workspace_id', '=', shop.workspaceId)
      .where('invoice_id', '=', invoice.id)
      .orderBy('id')
      .execute();
    expect(events.map((event) => event.type)).toContain('payment_intent.succeeded');
    // Nothing is left for the merchant to resolve.
    expect(await receivedFor(sent.hash)).toBeUndefined();
  });

  it('of the amount of two open invoices pays neither: it is listed ambiguous, and applying it pays the chosen one once', async () => {
    const first = await openInvoice('4.32');
    const second = await openInvoice('4.32');
    const sent = await sendFromNewPayer(first.payTo, 4_320_000n);

    await expect.poll(() => receivedFor(sent.hash), PAID).toMatchObject({ status: 'unmatched', reason: 'ambiguous' });
    expect([await statusOf(first.id), await statusOf(second.id)]).toEqual(['open', 'open']);
    const unmatched = await api<{ receivedTransfers: Received[] }>('GET', '/received-transfers?status=unmatched');
    const record = unmatched.body.receivedTransfers.find((entry) => entry.transactionHash === sent.hash)!;
    expect(record.amount).toBe('4.320000');

    const applied = await api<Received>('POST', `/received-transfers/${record.id}/apply`, { invoiceId: second.id });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ status: 'applied' });
    expect([await statusOf(first.id), await statusOf(second.id)]).toEqual(['open', 'paid']);

    const again = await api<{ code: string }>('POST', `/received-transfers/${record.id}/apply`, {
      invoiceId: first.id,
    });
    expect([again.status, again.body.code]).toEqual([409, 'received_transfer_resolved']);
    expect(await statusOf(first.id)).toBe('open');
  });

  it('applied by an apply cut after its payment committed: applying again marks it with that payment, paying nothing twice', async () => {
    const first = await openInvoice('4.56');
    const second = await openInvoice('4.56');
    const sent = await sendFromNewPayer(first.payTo, 4_560_000n);
    await expect.poll(() => receivedFor(sent.hash), PAID).toMatchObject({ status: 'unmatched', reason: 'ambiguous' });
    const record = (await receivedFor(sent.hash))!;
    const stored = await paying.services.receivedTransfers.get(
      shop.workspaceId as WorkspaceId,
      record.id as ReceivedTransferId,
    );

    // The apply's first commit alone, as a crash right after it leaves it: the invoice paid, the transfer unmatched.
    const payment = await paying.services.payments.applyTransfer(
      shop.workspaceId as WorkspaceId,
      invoiceOrder(first.id),
      stored.transfer,
      { acceptShortfall: false },
    );
    expect([await statusOf(first.id), (await receivedFor(sent.hash))!.status]).toEqual(['paid', 'unmatched']);

    const elsewhere = await api<{ code: string; message: string }>('POST', `/received-transfers/${record.id}/apply`, {
      invoiceId: second.id,
    });
    expect([elsewhere.status, elsewhere.body.code]).toEqual([400, 'invalid_payment']);

    const again = await api<Received>('POST', `/received-transfers/${record.id}/apply`, { invoiceId: first.id });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'applied', appliedInvoiceId: first.id, paymentIntentId: payment.id });
    const intents = await sql<{ id: string; status: string }>`
      SELECT id, status FROM payment_intents WHERE workspace_id = ${shop.workspaceId} AND invoice_id = ${first.id}`.execute(
      paying.database.db,
    );
    expect(intents.rows).toEqual([{ id: payment.id, status: 'succeeded' }]);
    expect(await statusOf(second.id)).toBe('open');
  });

  it('short of the amount is listed with what arrived; applying it needs acceptShortfall, and the payment records the shortfall', async () => {
    const invoice = await openInvoice('5.43');
    const sent = await sendFromNewPayer(invoice.payTo, 5_000_000n);

    const record = await expect
      .poll(() => receivedFor(sent.hash), PAID)
      .toMatchObject({ status: 'unmatched', reason: 'no_matching_invoice', amount: '5.000000' })
      .then(() => receivedFor(sent.hash));
    const refused = await api<{ code: string }>('POST', `/received-transfers/${record!.id}/apply`, {
      invoiceId: invoice.id,
    });
    expect([refused.status, refused.body.code]).toEqual([422, 'shortfall_not_accepted']);
    expect(await statusOf(invoice.id)).toBe('open');

    const applied = await api<Received>('POST', `/received-transfers/${record!.id}/apply`, {
      invoiceId: invoice.id,
      acceptShortfall: true,
    });
    expect(applied.status).toBe(200);
    expect(await statusOf(invoice.id)).toBe('paid');
    const intent = await api('GET', `/payment-intents/${applied.body.paymentIntentId}`);
    expect(intent.body).toMatchObject({
      status: 'succeeded',
      amount: '5.430000',
      amountReceived: '5.000000',
      shortfall: '0.430000',
      overpaid: null,
    });
  });

  it('above the amount, applied: the payment records the excess as overpaid', async () => {
    const invoice = await openInvoice('6.54');
    const sent = await sendFromNewPayer(invoice.payTo, 7_000_000n);
    await expect.poll(() => receivedFor(sent.hash), PAID).toMatchObject({ status: 'unmatched' });
    const record = (await receivedFor(sent.hash))!;

    const applied = await api<Received>('POST', `/received-transfers/${record.id}/apply`, { invoiceId: invoice.id });
    expect(applied.status).toBe(200);
    const intent = await api('GET', `/payment-intents/${applied.body.paymentIntentId}`);
    expect(intent.body).toMatchObject({ amountReceived: '7.000000', shortfall: null, overpaid: '0.460000' });
  });

  it('dismissed, leaves the unmatched list with its note; it cannot be applied after', async () => {
    const invoice = await openInvoice('7.65');
    const sent = await sendFromNewPayer(invoice.payTo, 1_000_000n);
    await expect.poll(() => receivedFor(sent.hash), PAID).toMatchObject({ status: 'unmatched' });
    const record = (await receivedFor(sent.hash))!;

    const dismissed = await api('POST', `/received-transfers/${record.id}/dismiss`, { note: 'Refunded.' });
    expect(dismissed.body).toMatchObject({ status: 'dismissed', note: 'Refunded.' });
    const unmatched = await api<{ receivedTransfers: Received[] }>('GET', '/received-transfers?status=unmatched');
    expect(unmatched.body.receivedTransfers.map((entry) => entry.id)).not.toContain(record.id);
    const applied = await api<{ code: string }>('POST', `/received-transfers/${record.id}/apply`, {
      invoiceId: invoice.id,
      acceptShortfall: true,
    });
    expect([applied.status, applied.body.code]).toEqual([409, 'received_transfer_resolved']);
  });

  it('submitted for an invoice of another amount: the attempt fails, and the transfer is recorded for that invoice, in the feed and in /issues', async () => {
    const invoice = await openInvoice('8.76');
    const sent = await sendFromNewPayer(invoice.payTo, 8_000_000n);
    const submitted = await paying.app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/i/${invoice.id}/transactions`,
      payload: { network: 'base-sepolia', txHash: sent.hash },
    });
    expect(submitted.statusCode).toBeLessThan(300);

    await expect
      .poll(() => receivedFor(sent.hash), PAID)
      .toMatchObject({ status: 'unmatched', reason: 'amount_mismatch', invoiceId: invoice.id, amount: '8.000000' });
    expect(await statusOf(invoice.id)).toBe('open');
    const issues = await api<{ issues: { kind: string; count?: number }[] }>('GET', '/issues');
    expect(issues.body.issues.find((issue) => issue.kind === 'unmatched_transfers')?.count).toBeGreaterThan(0);
    const feed = await api<{
      events: { type: string; invoiceId?: string; data: { receivedTransfer?: { transactionHash: string } } }[];
    }>('GET', '/changes?after=0&limit=500');
    const unmatched = feed.body.events.filter(
      (event) => event.type === 'transfer.unmatched' && event.data.receivedTransfer?.transactionHash === sent.hash,
    );
    expect(unmatched).toHaveLength(1);
    expect(unmatched[0]!.invoiceId).toBe(invoice.id);
  });
});
