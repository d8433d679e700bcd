import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ChangeFeedGoneError, createClient } from '@invoice-service/client';
import { pruneEvents } from '../../src/modules/events/change-feed.jobs.js';
import { clientWorkspace, startClientApp } from '../support/client-app.js';

const service = await startClientApp();

/** A fresh workspace's client, with `count` invoices created through it (each one `invoice.created` event). */
async function shopWith(count: number) {
  const workspace = await clientWorkspace(service);
  const client = createClient(workspace);
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const { data } = await client.POST('/invoices', { body: { amount: String(i), externalId: `order-${i}` } });
    ids.push(data!.id);
  }
  return { ...workspace, client, ids };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('client.changes()', () => {
  it('reads every event in order across pages, from the start or from a saved cursor', async () => {
    const { client, ids } = await shopWith(5);
    const events = await collect(client.changes({ limit: 2 }));
    expect(events.map((event) => event.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(events.map((event) => [event.type, event.invoiceId])).toEqual(ids.map((id) => ['invoice.created', id]));
    expect((await collect(client.changes({ after: '3', limit: 2 }))).map((event) => event.id)).toEqual(['4', '5']);
    expect(await collect(client.changes({ after: '5' }))).toEqual([]);
  });

  it('with follow, waits for new events once caught up and stops when the signal aborts', async () => {
    const { client } = await shopWith(1);
    const controller = new AbortController();
    const seen: string[] = [];
    const following = (async () => {
      for await (const event of client.changes({ follow: true, pollIntervalMs: 20, signal: controller.signal })) {
        seen.push(event.id);
        // Caught up after the first: the next invoice comes while the feed is being polled.
        if (event.id === '1') await client.POST('/invoices', { body: { amount: '7' } });
        if (event.id === '2') controller.abort(new Error('done'));
      }
    })();
    await expect(following).rejects.toThrow('done');
    expect(seen).toEqual(['1', '2']);
  });

  it('throws ChangeFeedGoneError with restartCursor when retention deleted the events after the cursor', async () => {
    const { client, workspaceId } = await shopWith(4);
    await sql`UPDATE events SET created_at = now() - interval '31 days'
              WHERE workspace_id = ${workspaceId} AND id <= 2`.execute(service.database.db);
    await pruneEvents(service.database.db, new Date(), { eventDays: 30, invoiceDays: 400 });

    const gone = await collect(client.changes({ after: '1' })).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(ChangeFeedGoneError);
    expect(gone).toMatchObject({ status: 410, code: 'cursor_expired', restartCursor: '2' });
    const restarted = await collect(client.changes({ after: (gone as ChangeFeedGoneError).restartCursor }));
    expect(restarted.map((event) => event.id)).toEqual(['3', '4']);
  });

  it('throws ApiError for other refusals', async () => {
    const { client } = await shopWith(0);
    const refused = await collect(client.changes({ after: '99' })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).not.toBeInstanceOf(ChangeFeedGoneError);
    expect(refused).toMatchObject({ status: 400, code: 'invalid_cursor', requestId: expect.any(String) });
  });
});

describe('client.listInvoices() and client.exportInvoices()', () => {
  let shop: Awaited<ReturnType<typeof shopWith>>;
  beforeAll(async () => {
    shop = await shopWith(5);
  });

  it('lists every invoice across pages, newest first, with the filters', async () => {
    const listed = await collect(shop.client.listInvoices({ limit: 2 }));
    expect(listed.map((invoice) => invoice.id)).toEqual([...shop.ids].reverse());
    expect(await collect(shop.client.listInvoices({ status: 'paid' }))).toEqual([]);
  });

  it('streams the CSV export, one line an invoice after the header', async () => {
    const text = await new Response(await shop.client.exportInvoices({ status: 'open' })).text();
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^number,id,status,amount/);
    expect(lines.slice(1).map((line) => line.split(',')[1])).toEqual(shop.ids);
  });

  it('throws ApiError when the key may not read invoices', async () => {
    const workspace = await clientWorkspace(service, ['invoices:create']);
    const client = createClient(workspace);
    await expect(collect(client.listInvoices())).rejects.toMatchObject({ status: 403, code: 'permission_denied' });
    await expect(client.exportInvoices()).rejects.toBeInstanceOf(ApiError);
  });
});
