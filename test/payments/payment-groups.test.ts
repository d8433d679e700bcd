import { expect, it } from 'vitest';
import type { Hash } from 'viem';
import { findIntent } from '../../src/modules/payment-engine/payment.repo.js';
import type { PaymentIntent, PaymentIntentId } from '../../src/modules/payment-engine/payment-intent.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, startPayingApp } from '../support/paying-app.js';

// The outcomes one block brings are written together: their intents and invoices are locked in one
// statement a table, and each row is read once, by the step that changes it first. A second payment of
// an invoice in the same group must see the invoice as the first one left it.
const chain = await createControlledChain({ confirmations: 1 });
// No worker: the submitted hashes stay processing until the test records their outcomes.
const paying = await startPayingApp(chain, { worker: false });
const shop = await openShop(paying);
const workspaceId = shop.workspaceId as WorkspaceId;

/** The engine's way in for the outcomes of one block (settlements and verifications call it). */
const engine = paying.services.payments as unknown as {
  finish(intent: PaymentIntent, outcome: { succeeded: object }): Promise<void>;
};

let hashes = 0;
async function submitted(invoiceId: string, txHash = `0x${(++hashes).toString(16).padStart(64, 'a')}` as Hash) {
  const response = await paying.app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/i/${invoiceId}/transactions`,
    payload: { network: 'base-sepolia', txHash },
  });
  expect(response.statusCode, response.body).toBe(202);
  return (await findIntent(paying.database.db, workspaceId, response.json().paymentIntentId as PaymentIntentId))!;
}

const succeeded = (blockTime: Date) => ({
  succeeded: {
    logIndex: 0,
    blockNumber: 7n,
    blockHash: `0x${'b7'.repeat(32)}`,
    blockTime,
    payer: `0x${'1'.repeat(40)}`,
  },
});

it('records the outcomes of one block in one transaction: a second payment of an invoice paid in it is an overpayment', async () => {
  const [a, b] = [await shop.invoice('1.5'), await shop.invoice('2')];
  const intents = [await submitted(a.id), await submitted(a.id), await submitted(b.id)];
  const blockTime = new Date();
  // In one turn, as a block's settlements finish: one group.
  await Promise.all(intents.map((intent) => engine.finish(intent, succeeded(blockTime))));

  const rows = await paying.database.db
    .selectFrom('payment_intents')
    .select(['id', 'invoice_id', 'status', 'overpayment'])
    // The transaction that last wrote the row.
    .select((eb) => eb.cast<string>(eb.ref('xmin' as never), 'text').as('written_by'))
    .where(
      'id',
      'in',
      intents.map((intent) => intent.id),
    )
    .execute();
  expect(new Set(rows.map((row) => row.written_by)).size).toBe(1);
  const ofA = rows.filter((row) => row.invoice_id === a.id);
  expect(ofA.map((row) => [row.status, row.overpayment]).sort()).toEqual([
    ['succeeded', false],
    ['succeeded', true],
  ]);
  expect(rows.find((row) => row.invoice_id === b.id)).toMatchObject({ status: 'succeeded', overpayment: false });

  const paidBy = ofA.find((row) => !row.overpayment)!;
  const events = await paying.database.db
    .selectFrom('events')
    .select(['type', 'payment_intent_id'])
    .where('invoice_id', '=', a.id)
    .orderBy('id')
    .execute();
  expect(events.filter((event) => event.type === 'invoice.paid')).toHaveLength(1);
  expect(events.filter((event) => event.type === 'payment_intent.succeeded')).toEqual([
    { type: 'payment_intent.succeeded', payment_intent_id: paidBy.id },
  ]);
  expect(events.filter((event) => event.type === 'payment_intent.overpaid')).toHaveLength(1);
  for (const invoice of [a, b]) expect((await shop.api('GET', `/invoices/${invoice.id}`)).json().status).toBe('paid');
});

it('claims a transfer for the first of two payments in a group that name it; the other fails as already used', async () => {
  const invoices = [await shop.invoice('3'), await shop.invoice('3')].sort((x, y) => (x.id < y.id ? -1 : 1));
  const txHash = `0x${'c3'.repeat(32)}` as Hash;
  // The same hash pasted on two invoices: both wait for it; a group is written in invoice order.
  const intents = [await submitted(invoices[1]!.id, txHash), await submitted(invoices[0]!.id, txHash)];
  await Promise.all(intents.map((intent) => engine.finish(intent, succeeded(new Date()))));

  const rows = await paying.database.db
    .selectFrom('payment_intents')
    .select(['invoice_id', 'status', 'failure_reason'])
    .where('tx_hash', '=', txHash)
    .execute();
  expect(rows).toEqual(
    expect.arrayContaining([
      { invoice_id: invoices[0]!.id, status: 'succeeded', failure_reason: null },
      { invoice_id: invoices[1]!.id, status: 'failed', failure_reason: 'already_used' },
    ]),
  );
  const claims = await paying.database.db
    .selectFrom('payment_claims')
    .select('payment_intent_id')
    .where('tx_hash', '=', txHash)
    .execute();
  expect(claims).toEqual([{ payment_intent_id: intents[1]!.id }]);
});

it('records an outcome that comes twice in one group once', async () => {
  const invoice = await shop.invoice('4');
  const intent = await submitted(invoice.id);
  const outcome = succeeded(new Date());
  await Promise.all([engine.finish(intent, outcome), engine.finish(intent, outcome)]);

  const row = await findIntent(paying.database.db, workspaceId, intent.id);
  expect(row).toMatchObject({ status: 'succeeded', overpayment: false, failureReason: null });
  const events = await paying.database.db
    .selectFrom('events')
    .select('type')
    .where('payment_intent_id', '=', intent.id)
    .where('type', '=', 'payment_intent.succeeded')
    .execute();
  expect(events).toHaveLength(1);
});
