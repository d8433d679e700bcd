import { describe, expect, it } from 'vitest';
import { RetryLater } from '../../src/jobs/index.js';
import type { AutomationId } from '../../src/modules/automations/automation.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant, merchantApi } from '../support/app.js';

// An invoice's description: what the buyer pays for, shown on the checkout page, carried wherever the
// invoice goes (GET, the feed, the CSV export, batches, automations).
const clock = new ManualClock();
const { app, services, database } = await createTestApp(
  { API_RATE_LIMIT_PER_MINUTE: '1000000', NEW_WORKSPACE_CREDITS: '1000' },
  clock,
);
const TEAPOT = 'Teapot, "Blue" glaze\n1 l\tstoneware';

interface InvoiceBody {
  id: string;
  description: string | null;
}

let keys = 0;
async function shop() {
  clock.set(new Date());
  const m = await merchant(app, ['invoices:create', 'invoices:read', 'payments:read']);
  const call = merchantApi(app, m.workspaceId, m.apiKey);
  const create = (body: object) => call('POST', '/invoices', { 'idempotency-key': `description-${++keys}` }, body);
  return { ...m, call, create };
}

describe('an invoice description', () => {
  it('is kept as sent and shown by GET, the list, the feed and the checkout details', async () => {
    const s = await shop();
    const created = await s.create({ amount: '12.50', description: TEAPOT });
    expect(created.statusCode, created.body).toBe(201);
    const invoice = created.json<InvoiceBody>();
    expect(invoice.description).toBe(TEAPOT);

    expect((await s.call('GET', `/invoices/${invoice.id}`)).json()).toMatchObject({ description: TEAPOT });
    expect((await s.call('GET', '/invoices')).json()).toMatchObject({ invoices: [{ description: TEAPOT }] });
    const feed = (await s.call('GET', '/changes')).json<{ events: { type: string; data: { invoice: object } }[] }>();
    expect(feed.events).toMatchObject([{ type: 'invoice.created', data: { invoice: { description: TEAPOT } } }]);
    const checkout = await app.inject({
      method: 'GET',
      url: `/w/${s.workspaceId}/i/${invoice.id}`,
      headers: { accept: 'application/json' },
    });
    expect(checkout.json()).toMatchObject({ description: TEAPOT });
  });

  it('is null when omitted or empty', async () => {
    const s = await shop();
    for (const body of [{ amount: '1' }, { amount: '1', description: '' }]) {
      const created = await s.create(body);
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json<InvoiceBody>().description).toBeNull();
    }
  });

  it('replays with its description when the create is retried', async () => {
    const s = await shop();
    const headers = { 'idempotency-key': 'description-retried' };
    const first = await s.call('POST', '/invoices', headers, { amount: '3', description: 'Mug' });
    const again = await s.call('POST', '/invoices', headers, { amount: '3', description: 'Mug' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toMatchObject({ id: first.json<InvoiceBody>().id, description: 'Mug' });
  });

  it('is refused over 1,000 UTF-8 bytes, counted in bytes, with description_too_long', async () => {
    const s = await shop();
    // 333 × "€" is 999 bytes; one more is 1,002.
    expect((await s.create({ amount: '1', description: '€'.repeat(333) })).statusCode).toBe(201);
    const refused = await s.create({ amount: '1', description: '€'.repeat(334) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      code: 'description_too_long',
      message: expect.stringContaining('1000 UTF-8 bytes'),
      requestId: refused.headers['x-request-id'],
    });
  });

  it('refuses control characters other than line breaks and tabs with invalid_description', async () => {
    const s = await shop();
    for (const control of ['\u0007', '\u001b[31m', '\u007f', '\u0085']) {
      const refused = await s.create({ amount: '1', description: `Tea${control}pot` });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({
        code: 'invalid_description',
        message: expect.stringContaining('control character'),
        requestId: refused.headers['x-request-id'],
      });
    }
    expect((await s.create({ amount: '1', description: 'Tea\r\npot\tset' })).statusCode).toBe(201);
    expect((await s.call('GET', '/invoices')).json<{ invoices: unknown[] }>().invoices).toHaveLength(1);
  });

  it('is the last column of the CSV export, quoted with its comma, quotes and line break', async () => {
    const s = await shop();
    await s.create({ amount: '2', description: TEAPOT });
    await s.create({ amount: '2', description: '=1+1' });
    const csv = (await s.call('GET', '/invoices/export')).body;
    // Records end with CRLF; the description's own line break is a bare LF, inside its quotes.
    const [header, first, second] = csv.slice(0, -2).split('\r\n');
    expect(header!.endsWith(',external_id,automation_id,description')).toBe(true);
    expect(first!.endsWith(',"Teapot, ""Blue"" glaze\n1 l\tstoneware"')).toBe(true);
    // A description a spreadsheet would run as a formula is defused like an external id.
    expect(second!.endsWith(",'=1+1")).toBe(true);
  });

  it('is carried by a batch item, and refused in its item alone', async () => {
    const s = await shop();
    const response = await s.call(
      'POST',
      '/invoice-batches',
      { 'idempotency-key': 'description-batch' },
      {
        items: [
          { amount: '4', description: 'Saucer' },
          { amount: '4', description: 'x'.repeat(1001) },
        ],
        budgetCredits: 100,
      },
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      results: [{ invoice: { description: 'Saucer' } }, { error: { code: 'description_too_long' } }],
    });
  });

  it('is carried from an automation template to the invoices it creates and their invoice.scheduled', async () => {
    const s = await shop();
    const startAt = new Date(clock.now().getTime() + 3_600_000);
    const created = await s.call(
      'POST',
      '/automations',
      { 'idempotency-key': 'description-automation' },
      {
        name: 'Retainer',
        template: { amount: '25.00', description: 'Design retainer\nOne month' },
        schedule: { every: 'month', startAt: startAt.toISOString() },
      },
    );
    expect(created.statusCode, created.body).toBe(201);
    const automation = created.json<{ id: string; template: object }>();
    expect(automation.template).toEqual({ amount: '25.00', description: 'Design retainer\nOne month' });

    clock.set(startAt);
    const outcome = await services.automations
      .run(s.workspaceId as WorkspaceId, automation.id as AutomationId)
      .catch((error: unknown) => error);
    if (outcome !== undefined && !(outcome instanceof RetryLater)) throw outcome;
    const feed = (await s.call('GET', '/changes')).json<{ events: { type: string; data: { invoice: object } }[] }>();
    expect(feed.events).toMatchObject([
      { type: 'invoice.created', data: { invoice: { description: 'Design retainer\nOne month' } } },
      { type: 'invoice.scheduled', data: { invoice: { description: 'Design retainer\nOne month' } } },
    ]);

    const refused = await app.inject({
      method: 'PATCH',
      url: `/w/${s.workspaceId}/v1/automations/${automation.id}`,
      headers: { authorization: `Bearer ${s.apiKey}` },
      payload: { template: { amount: '25.00', description: 'Bell\u0007' } },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'invalid_description' });
  });

  it('is held to 1,000 bytes by the database too', async () => {
    const s = await shop();
    const invoice = (await s.create({ amount: '1' })).json<InvoiceBody>();
    await expect(
      database.db
        .updateTable('invoices')
        .set({ description: 'é'.repeat(501) })
        .where('workspace_id', '=', s.workspaceId)
        .where('id', '=', invoice.id)
        .execute(),
    ).rejects.toThrow(/invoices_description_check/);
  });
});
