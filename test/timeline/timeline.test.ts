import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { pruneEvents } from '../../src/modules/events/change-feed.jobs.js';
import { defineEventKind } from '../../src/modules/events/event.js';
import { append } from '../../src/modules/events/index.js';
import { findInvoice, type InvoiceId } from '../../src/modules/invoices/index.js';
import { invoiceEvent } from '../../src/modules/invoices/invoice.present.js';
import { recordAttemptResults } from '../../src/modules/webhooks/webhook.repo.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant } from '../support/app.js';
import { startTestReceiver } from '../support/webhook-receiver.js';
import { SCRIPTED_NETWORK, payByTransaction, scriptedChain, submitPayment, verifyPayment } from './scripted-chain.js';

/** What a payment record says of where its payment happened. */
const on = (payment: { hash: string }) => ({ network: SCRIPTED_NETWORK.name, transactionHash: payment.hash });

// A kind the timeline does not show, which exists only in this test.
declare module '../../src/modules/events/event.js' {
  interface EventDataByKind {
    'test.unshown': Record<string, never>;
  }
}
defineEventKind('test.unshown', { subject: 'invoice', webhook: false, timeline: null, when: 'only in this test' });

const MINUTE = 60_000;
const DAY = 86_400_000;
const clock = new ManualClock();
const chain = scriptedChain();
const { app, services, database } = await createTestApp(
  { API_RATE_LIMIT_PER_MINUTE: '1000000', NEW_WORKSPACE_CREDITS: '1000', WEBHOOK_ALLOW_PRIVATE: 'true' },
  clock,
  chain,
);

interface TimelineRecord {
  at: string;
  kind: string;
  eventId?: string;
  [field: string]: unknown;
}
interface Timeline {
  invoiceId: string;
  status: string;
  records: TimelineRecord[];
  truncated: boolean;
}

let keys = 0;

/** A workspace whose key may create and read invoices, read payments and configure webhooks. Made before the clock moves. */
async function shop(
  permissions = ['invoices:create', 'invoices:read', 'payments:read', 'webhooks:read', 'webhooks:write'],
) {
  const m = await merchant(app, permissions);
  const call = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url: `/w/${m.workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${m.apiKey}`, ...headers },
      ...(payload ? { payload } : {}),
    });
  return {
    ...m,
    call,
    async invoice(body: object = { amount: '10' }) {
      const response = await call('POST', '/invoices', body, {
        'idempotency-key': `timeline-${++keys}-${m.workspaceId}`,
      });
      expect(response.statusCode, response.body).toBe(201);
      const invoice = response.json<{ id: string; payTo: string; createdAt: string }>();
      return { ...invoice, workspaceId: m.workspaceId };
    },
    async timeline(invoiceId: string) {
      const response = await call('GET', `/invoices/${invoiceId}/timeline`);
      expect(response.statusCode, response.body).toBe(200);
      return { ...response.json<Timeline>(), raw: response.body };
    },
    async feed() {
      const response = await call('GET', '/changes?limit=500');
      return response.json<{ events: { id: string; type: string; createdAt: string }[] }>().events;
    },
  };
}

const [paymentShop, actionShop, webhookShop, capShop, otherShop, readOnlyShop, retentionShop, hookedShop] =
  await Promise.all([shop(), shop(), shop(), shop(), shop(), shop(['invoices:read']), shop(), shop()]);

describe('GET /invoices/{id}/timeline', () => {
  it('lists a failed then a successful payment oldest first, each record linked to its feed event', async () => {
    const invoice = await paymentShop.invoice();
    const createdAt = clock.now().toISOString();
    clock.advance(MINUTE);
    // A hash whose transfer does not pay the invoice never holds it; it reaches the feed only as a received
    // transfer (event 2, `transfer.unmatched`), which is not one of the invoice's records.
    const wrong = await submitPayment(services.payments, invoice);
    expect(await verifyPayment(services.payments, chain, invoice, wrong, 9_000_000n, clock.now())).toBe('done');
    clock.advance(MINUTE);
    // Found in a block, then reverted by a reorganisation before its confirmation.
    const failing = await submitPayment(services.payments, invoice);
    clock.advance(MINUTE);
    const blockTime = clock.now();
    const options = { confirmations: 0 };
    expect(await verifyPayment(services.payments, chain, invoice, failing, 10_000_000n, blockTime, options)).toBe(
      'waiting',
    );
    const foundAt = clock.now().toISOString();
    clock.advance(MINUTE);
    await verifyPayment(services.payments, chain, invoice, failing, 10_000_000n, blockTime, { success: false });
    const failedAt = clock.now().toISOString();
    clock.advance(MINUTE);
    const paying = await submitPayment(services.payments, invoice);
    clock.advance(MINUTE);
    await verifyPayment(services.payments, chain, invoice, paying, 10_000_000n, clock.now());
    const paidAt = clock.now().toISOString();

    const timeline = await paymentShop.timeline(invoice.id);
    expect(timeline).toMatchObject({ invoiceId: invoice.id, status: 'paid', truncated: false });
    // Same-instant records keep commit order: the payment service moves the invoice before it records the intent.
    expect(timeline.records).toEqual([
      { at: createdAt, kind: 'created', eventId: '1' },
      { at: foundAt, kind: 'verification_pending', eventId: '3' },
      { at: foundAt, kind: 'payment_submitted', eventId: '4', paymentIntentId: failing.intentId, ...on(failing) },
      { at: failedAt, kind: 'reopened', eventId: '5' },
      {
        at: failedAt,
        kind: 'payment_failed',
        eventId: '6',
        paymentIntentId: failing.intentId,
        ...on(failing),
        failureReason: 'reverted',
      },
      { at: paidAt, kind: 'verification_pending', eventId: '7' },
      { at: paidAt, kind: 'payment_submitted', eventId: '8', paymentIntentId: paying.intentId, ...on(paying) },
      // The paid invoice names the network that paid it; each payment record, its network and transaction.
      { at: paidAt, kind: 'paid', eventId: '9', network: SCRIPTED_NETWORK.name },
      { at: paidAt, kind: 'payment_confirmed', eventId: '10', paymentIntentId: paying.intentId, ...on(paying) },
    ]);
    // eventId is the change-feed id: the same event, the same time.
    const feed = new Map((await paymentShop.feed()).map((event) => [event.id, event]));
    for (const record of timeline.records) expect(feed.get(record.eventId!)?.createdAt).toBe(record.at);
    expect(feed.get('2')?.type).toBe('transfer.unmatched');
    expect(feed.get('6')?.type).toBe('payment_intent.failed');
  });

  it('shows cancellation, expiry and renewal with the new link version and deadline', async () => {
    const cancelled = await actionShop.invoice();
    const renewed = await actionShop.invoice({ amount: '3', expiresIn: 3600 });
    const createdAt = clock.now().toISOString();
    expect((await actionShop.call('POST', `/invoices/${cancelled.id}/cancel`)).statusCode).toBe(200);
    clock.advance(2 * 60 * MINUTE);
    await services.invoices.expireDue();
    expect((await actionShop.call('POST', `/invoices/${renewed.id}/renew`, { expiresIn: 86400 })).statusCode).toBe(200);
    const renewedAt = clock.now();

    const cancelledTimeline = await actionShop.timeline(cancelled.id);
    expect(cancelledTimeline.status).toBe('cancelled');
    expect(cancelledTimeline.records.map((record) => record.kind)).toEqual(['created', 'cancelled']);

    const renewedTimeline = await actionShop.timeline(renewed.id);
    expect(renewedTimeline.status).toBe('open');
    expect(renewedTimeline.records).toEqual([
      { at: createdAt, kind: 'created', eventId: '2' },
      // The expiry job ran two hours after creation; the event carries the time it was recorded.
      { at: renewedAt.toISOString(), kind: 'expired', eventId: '4' },
      {
        at: renewedAt.toISOString(),
        kind: 'renewed',
        eventId: '5',
        linkVersion: 2,
        expiresAt: new Date(renewedAt.getTime() + 86_400_000).toISOString(),
      },
    ]);
  });

  it('shows webhook attempts with status, error category and duration, never what the receiver sent', async () => {
    const receiver = await startTestReceiver(() => ({ status: 503 }));
    const configured = await webhookShop.call('PUT', '/webhook', { endpoint: receiver.url, enabled: true });
    expect(configured.statusCode, configured.body).toBe(200);
    const secret = configured.json<{ secret: string }>().secret;
    const invoice = await webhookShop.invoice();
    await payByTransaction(services.payments, chain, invoice, 10_000_000n, clock.now());
    const confirmedAt = clock.now().toISOString();
    const succeeded = (await webhookShop.feed()).find((event) => event.type === 'payment_intent.succeeded')!;

    // The first attempt starts at the instant of the event it sends: the event still comes first.
    await services.webhookDeliverer.attempt(webhookShop.workspaceId as WorkspaceId, succeeded.id);
    clock.advance(MINUTE);
    receiver.behave = () => ({ status: 200 });
    await services.webhookDeliverer.attempt(webhookShop.workspaceId as WorkspaceId, succeeded.id);
    expect(receiver.received).toHaveLength(2);

    const timeline = await webhookShop.timeline(invoice.id);
    const tail = timeline.records.slice(-3);
    expect(tail).toEqual([
      expect.objectContaining({ at: confirmedAt, kind: 'payment_confirmed', eventId: succeeded.id }),
      {
        at: confirmedAt,
        kind: 'webhook_attempt',
        eventId: succeeded.id,
        attempt: 1,
        statusCode: 503,
        error: 'http_status',
        durationMs: expect.any(Number),
      },
      {
        at: clock.now().toISOString(),
        kind: 'webhook_attempt',
        eventId: succeeded.id,
        attempt: 2,
        statusCode: 200,
        error: null,
        durationMs: expect.any(Number),
      },
    ]);
    // The response schema is the whitelist: no stored event data, no body, no header, no secret.
    expect(Object.keys(tail[1]!).sort()).toEqual([
      'at',
      'attempt',
      'durationMs',
      'error',
      'eventId',
      'kind',
      'statusCode',
    ]);
    expect(Object.keys(timeline.records[0]!).sort()).toEqual(['at', 'eventId', 'kind']);
    expect(timeline.raw).not.toContain('secret internals');
    expect(timeline.raw).not.toContain(secret);
    expect(timeline.raw).not.toMatch(/pay_to|payTo|"data"|x-payment/i);
  });

  it('returns the 100 most recent of 150 records, events and attempts merged by time, and says it truncated', async () => {
    const invoice = await capShop.invoice();
    const workspaceId = capShop.workspaceId as WorkspaceId;
    const start = clock.now().getTime();
    const at = (second: number) => new Date(start + second * 1000);
    // 149 records after `created`, written as the payment service and the deliverer write them.
    await database.db.transaction().execute(async (trx) => {
      for (let second = 1; second < 150; second++) {
        if (second % 3 === 0) {
          await recordAttemptResults(trx, [
            {
              workspaceId,
              eventId: '999',
              invoiceId: invoice.id,
              createdAt: at(0).toISOString(),
              attempt: second / 3,
              startedAt: at(second),
              outcome: { ok: false, status: 500, error: 'http_status', durationMs: second },
              status: 'pending',
              nextAttemptAt: null,
            },
          ]);
        } else if (second % 3 === 1) {
          const current = (await findInvoice(trx, workspaceId, invoice.id as InvoiceId))!;
          await append(trx, workspaceId, invoiceEvent('invoice.processing', current, services.config, at(second)));
        } else {
          const paymentIntent = { id: `pi_${second}`, status: 'failed', failureReason: 'not_found' };
          await append(trx, workspaceId, {
            type: 'payment_intent.failed',
            invoiceId: invoice.id,
            paymentIntentId: `pi_${second}`,
            data: { paymentIntent },
            at: at(second),
          });
        }
      }
      // A newer event of a kind the timeline does not show takes no place among the 100.
      await append(trx, workspaceId, { type: 'test.unshown', invoiceId: invoice.id, data: {}, at: at(500) });
    });

    const timeline = await capShop.timeline(invoice.id);
    expect(timeline.truncated).toBe(true);
    expect(timeline.records).toHaveLength(100);
    expect(timeline.records.map((record) => record.at)).toEqual(
      Array.from({ length: 100 }, (_, i) => at(50 + i).toISOString()),
    );
    expect(timeline.records.slice(0, 3)).toEqual([
      {
        at: at(50).toISOString(),
        kind: 'payment_failed',
        eventId: expect.any(String),
        paymentIntentId: 'pi_50',
        failureReason: 'not_found',
      },
      {
        at: at(51).toISOString(),
        kind: 'webhook_attempt',
        eventId: '999',
        attempt: 17,
        statusCode: 500,
        error: 'http_status',
        durationMs: 51,
      },
      { at: at(52).toISOString(), kind: 'verification_pending', eventId: expect.any(String) },
    ]);
    expect(timeline.records.filter((record) => record.kind === 'webhook_attempt')).toHaveLength(33);
  });

  it('answers 404 not_found for an invoice of another workspace, as for an unknown one', async () => {
    const theirs = await paymentShop.invoice();
    for (const invoiceId of [theirs.id, 'inv_00000000000000000000000000']) {
      const response = await otherShop.call('GET', `/invoices/${invoiceId}/timeline`);
      expect({ status: response.statusCode, code: response.json().code }).toEqual({ status: 404, code: 'not_found' });
    }
  });

  it('needs the payments:read permission', async () => {
    const invoice = await paymentShop.invoice();
    const response = await app.inject({
      method: 'GET',
      url: `/w/${readOnlyShop.workspaceId}/v1/invoices/${invoice.id}/timeline`,
      headers: { authorization: `Bearer ${readOnlyShop.apiKey}` },
    });
    expect({ status: response.statusCode, code: response.json().code }).toEqual({
      status: 403,
      code: 'permission_denied',
    });
  });

  it('is documented in /openapi.json with its permission and record kinds', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = document.paths['/w/{workspaceId}/v1/invoices/{invoiceId}/timeline'].get;
    expect(operation['x-permission']).toBe('payments:read');
    expect(operation.description).toMatch(/webhook_attempt/);
    const kinds =
      operation.responses['200'].content['application/json'].schema.properties.records.items.properties.kind.enum;
    expect(kinds).toEqual([
      'created',
      'payment_submitted',
      'verification_pending',
      'payment_confirmed',
      'paid',
      'payment_failed',
      'overpayment_received',
      'payment_reverted',
      'expired',
      'cancelled',
      'renewed',
      'reopened',
      'scheduled',
      'webhook_attempt',
    ]);
  });
});

// Last in the file: it moves the clock by months.
describe('the timeline past the change feed’s retention', () => {
  /** The invoice_history rows of an invoice of `shop`. */
  const historyOf = async (shop: { workspaceId: string }, invoiceId: string) =>
    (
      await sql<{ type: string }>`
        SELECT type FROM invoice_history WHERE workspace_id = ${shop.workspaceId} AND invoice_id = ${invoiceId}`.execute(
        database.db,
      )
    ).rows.map((row) => row.type);
  const retention = { eventDays: 30, invoiceDays: 400 };

  it('keeps a paid invoice’s records when the feed deletes its events, and says when retention removed any', async () => {
    // Two shops pay alike; one has a webhook endpoint, whose delivery attempts are kept 30 days only.
    const endpoint = await hookedShop.call('PUT', '/webhook', { endpoint: 'http://127.0.0.1:9/hooks' });
    expect(endpoint.statusCode, endpoint.body).toBe(200);
    const paid = [];
    for (const shop of [retentionShop, hookedShop]) {
      const invoice = await shop.invoice();
      clock.advance(MINUTE);
      const payment = await submitPayment(services.payments, invoice);
      await verifyPayment(services.payments, chain, invoice, payment, 10_000_000n, clock.now());
      paid.push({ shop, invoice, fresh: await shop.timeline(invoice.id) });
    }
    for (const { fresh } of paid) {
      expect(fresh.records.map((record) => record.kind)).toEqual([
        'created',
        'verification_pending',
        'payment_submitted',
        'paid',
        'payment_confirmed',
      ]);
      expect(fresh.truncated).toBe(false);
    }

    // Past the feed's 30 days: the events are gone from the feed, not from the invoices' timelines. Only
    // where a webhook was sent may attempts have gone with the delivery history, which `truncated` says.
    clock.advance(40 * DAY);
    await pruneEvents(database.db, clock.now(), retention);
    for (const { shop, invoice, fresh } of paid) {
      expect(await shop.feed()).toEqual([]);
      const aged = await shop.timeline(invoice.id);
      expect(aged.records).toEqual(fresh.records);
      expect(aged.truncated).toBe(shop === hookedShop);
      expect(await historyOf(shop, invoice.id)).toHaveLength(5);
    }

    // Past INVOICE_RETENTION_DAYS the history goes too, and an empty list is never "complete".
    clock.advance(361 * DAY);
    await pruneEvents(database.db, clock.now(), retention);
    for (const { shop, invoice } of paid) {
      expect(await historyOf(shop, invoice.id)).toEqual([]);
      expect(await shop.timeline(invoice.id)).toMatchObject({ status: 'paid', records: [], truncated: true });
    }
  });

  it('says records are missing when its creation is not among them, whatever removed them', async () => {
    const invoice = await retentionShop.invoice();
    clock.advance(MINUTE);
    await retentionShop.call('POST', `/invoices/${invoice.id}/cancel`);
    expect((await retentionShop.timeline(invoice.id)).truncated).toBe(false);
    // As the feed's retention did before the invoice history existed: the oldest event deleted outright.
    await sql`DELETE FROM events WHERE workspace_id = ${retentionShop.workspaceId} AND invoice_id = ${invoice.id}
               AND type = 'invoice.created'`.execute(database.db);
    expect(await retentionShop.timeline(invoice.id)).toMatchObject({
      records: [expect.objectContaining({ kind: 'cancelled' })],
      truncated: true,
    });
  });

  it('leaves a newer invoice’s events in the feed and its history untouched', async () => {
    const older = await retentionShop.invoice();
    // A week's events go when all of the week is past the retention: 30 to 37 days after they were written.
    clock.advance(38 * DAY);
    const newer = await retentionShop.invoice();
    await pruneEvents(database.db, clock.now(), retention);
    expect((await retentionShop.feed()).map((event) => event.type)).toEqual(['invoice.created']);
    expect(await historyOf(retentionShop, older.id)).toEqual(['invoice.created']);
    expect(await historyOf(retentionShop, newer.id)).toEqual([]);
    expect((await retentionShop.timeline(newer.id)).records.map((record) => record.kind)).toEqual(['created']);
  });
});
