import { describe, expect, it } from 'vitest';
import { pruneEvents } from '../../src/modules/events/change-feed.jobs.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestApp, merchant } from '../support/app.js';
import { pdfText } from '../support/pdf.js';
import { SCRIPTED_NETWORK, scriptedChain, submitPayment, verifyPayment } from './scripted-chain.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const clock = new ManualClock();
const chain = scriptedChain();
const { app, services, database, config } = await createTestApp(
  { API_RATE_LIMIT_PER_MINUTE: '1000000', NEW_WORKSPACE_CREDITS: '1000' },
  clock,
  chain,
);
const retention = { eventDays: config.eventRetentionDays, invoiceDays: config.invoiceRetentionDays };

interface InvoiceBody {
  id: string;
  number: string;
  status: string;
  externalId: string | null;
  createdAt: string;
  expiresAt: string;
  archived: boolean;
  [field: string]: unknown;
}
interface Timeline {
  status: string;
  records: { kind: string }[];
  truncated: boolean;
  snapshot: Record<string, unknown> | null;
}

const m = await merchant(app, ['invoices:create', 'invoices:read', 'payments:read']);
let keys = 0;
const call = (path: string, init: { method?: 'GET' | 'POST'; payload?: object; accept?: string } = {}) =>
  app.inject({
    method: init.method ?? 'GET',
    url: `/w/${m.workspaceId}/v1${path}`,
    headers: {
      authorization: `Bearer ${m.apiKey}`,
      'idempotency-key': `archive-${++keys}`,
      ...(init.accept && { accept: init.accept }),
    },
    ...(init.payload && { payload: init.payload }),
  });
const read = async <T>(path: string): Promise<T> => {
  const response = await call(path);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<T>();
};
const create = async (body: object) => {
  const response = await call('/invoices', { method: 'POST', payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return { ...response.json<InvoiceBody & { payTo: string }>(), workspaceId: m.workspaceId };
};
const kinds = (timeline: Timeline) => timeline.records.map((record) => record.kind);
/** Ages the feed's events and the invoice history as the hourly retention job does. */
const age = async (days: number) => {
  clock.advance(days * DAY);
  await pruneEvents(database.db, clock.now(), retention);
};

// Moves the clock by more than a year: this file's invoices are all made here, in order.
describe('an invoice past the invoice retention', () => {
  it('keeps a paid invoice’s records past the feed’s retention, then archives it with its snapshot and keeps it findable and its receipt readable', async () => {
    const invoice = await create({ amount: '12.5', externalId: 'order-archive-7', description: 'Blue teapot' });
    const unpaid = await create({ amount: '3' });
    clock.advance(MINUTE);
    const payment = await submitPayment(services.payments, invoice);
    await verifyPayment(services.payments, chain, invoice, payment, 12_500_000n, clock.now());
    const paid = await read<InvoiceBody>(`/invoices/${invoice.id}`);
    expect(paid).toMatchObject({ status: 'paid', archived: false });
    const receipt = await read<{ receiptNumber: string; paymentIntentId: string; paidAt: string }>(
      `/invoices/${invoice.id}/receipt`,
    );
    expect(receipt.paymentIntentId).toBe(payment.intentId);
    const fresh = await read<Timeline>(`/invoices/${invoice.id}/timeline`);
    expect(fresh).toMatchObject({ truncated: false, snapshot: null });

    // Past the feed's retention: the events are gone from the feed, not from the timeline.
    await age(config.eventRetentionDays + 10);
    expect((await read<{ events: unknown[] }>('/changes')).events).toEqual([]);
    const aged = await read<Timeline>(`/invoices/${invoice.id}/timeline`);
    expect(aged).toEqual(fresh);
    expect(kinds(aged)).toEqual(expect.arrayContaining(['created', 'paid', 'payment_confirmed']));
    expect(await read<InvoiceBody>(`/invoices/${invoice.id}`)).toEqual(paid);

    // Past INVOICE_RETENTION_DAYS from its creation: archived, its records gone, its own facts kept.
    await age(config.invoiceRetentionDays - config.eventRetentionDays - 9);
    const archived = await read<InvoiceBody>(`/invoices/${invoice.id}`);
    expect(archived).toEqual({ ...paid, archived: true });
    expect(await read<Timeline>(`/invoices/${invoice.id}/timeline`)).toEqual({
      invoiceId: invoice.id,
      status: 'paid',
      records: [],
      truncated: true,
      snapshot: {
        number: invoice.number,
        amount: '12.500000',
        currency: 'USDC',
        description: 'Blue teapot',
        externalId: 'order-archive-7',
        status: 'paid',
        network: SCRIPTED_NETWORK.name,
        createdAt: invoice.createdAt,
        expiresAt: invoice.expiresAt,
        paidAt: receipt.paidAt,
        expiredAt: null,
        cancelledAt: null,
        paymentIntentId: payment.intentId,
        receiptNumber: receipt.receiptNumber,
      },
    });

    // Found by number and by order reference, and listed, as the archived invoice it is.
    for (const q of [invoice.number, 'order-archive-7']) {
      const found = await read<{ invoices: InvoiceBody[] }>(`/invoice-search?q=${encodeURIComponent(q)}`);
      expect(found.invoices).toEqual([archived]);
    }
    const listed = await read<{ invoices: InvoiceBody[] }>('/invoices?status=paid');
    expect(listed.invoices).toEqual([archived]);

    // The receipt is a financial record: JSON and PDF read as they did.
    expect(await read(`/invoices/${invoice.id}/receipt`)).toMatchObject(receipt);
    const pdf = await call(`/invoices/${invoice.id}/receipt`, { accept: 'application/pdf' });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const text = await pdfText(pdf.rawPayload);
    for (const fact of [receipt.receiptNumber, invoice.number, 'Blue teapot', 'order-archive-7', '12.50 USDC'])
      expect(text).toContain(fact);

    // An archived invoice never paid has no payment or receipt in its snapshot; a change to it still
    // shows, in its event as in the answer, the invoice as archived.
    expect((await read<Timeline>(`/invoices/${unpaid.id}/timeline`)).snapshot).toMatchObject({
      status: 'expired',
      paymentIntentId: null,
      receiptNumber: null,
    });
    const cancelled = await call(`/invoices/${unpaid.id}/cancel`, { method: 'POST' });
    expect(cancelled.json()).toMatchObject({ status: 'cancelled', archived: true });
    const { events } = await read<{ events: { type: string; data: { invoice: unknown } }[] }>('/changes');
    expect(events.map((event) => event.type)).toEqual(['invoice.cancelled']);
    expect(events[0]!.data.invoice).toEqual(cancelled.json());
    const unpaidTimeline = await read<Timeline>(`/invoices/${unpaid.id}/timeline`);
    expect(kinds(unpaidTimeline)).toEqual(['cancelled']);
    expect(unpaidTimeline).toMatchObject({
      truncated: true,
      snapshot: { status: 'cancelled', cancelledAt: expect.any(String) },
    });

    // An invoice younger than the retention is not archived and has no snapshot.
    const younger = await create({ amount: '1' });
    expect(younger.archived).toBe(false);
    expect(await read<Timeline>(`/invoices/${younger.id}/timeline`)).toMatchObject({
      records: [{ kind: 'created' }],
      truncated: false,
      snapshot: null,
    });
  });
});
