import { expect, it } from 'vitest';
import { createTestApp, merchant } from '../support/app.js';

const { app } = await createTestApp({ NEW_WORKSPACE_CREDITS: '100000', API_RATE_LIMIT_PER_MINUTE: '10000000' });

const EVENTS = 2000;
/** Concurrent writers, each sending its share of creates one after another, so writes span the whole read. */
const LANES = 40;

it(
  'a reader paging while writers create 2,000 events concurrently sees every id exactly once, in order',
  { timeout: 60_000 },
  async () => {
    const shop = await merchant(app, ['invoices:create', 'invoices:read']);
    const headers = { authorization: `Bearer ${shop.apiKey}` };
    const url = `/w/${shop.workspaceId}/v1`;

    const created: string[] = [];
    const writers = Array.from({ length: LANES }, async (_, lane) => {
      for (let i = lane; i < EVENTS; i += LANES) {
        const response = await app.inject({
          method: 'POST',
          url: `${url}/invoices`,
          headers: { ...headers, 'idempotency-key': `concurrent-${i}` },
          payload: { amount: '1' },
        });
        expect(response.statusCode, response.body).toBe(201);
        created.push(response.json<{ id: string }>().id);
      }
    });

    const seen: string[] = [];
    const invoiceIds: string[] = [];
    let pagesWithEvents = 0;
    let cursor = '0';
    let writersDone = false;
    const reader = (async () => {
      while (seen.length < EVENTS) {
        // Whether every write had committed before this page was asked for: only then may it be the last.
        const doneBeforeRead = writersDone;
        const response = await app.inject({ method: 'GET', url: `${url}/changes?after=${cursor}&limit=97`, headers });
        expect(response.statusCode, response.body).toBe(200);
        const page = response.json<{
          events: { id: string; invoiceId: string }[];
          nextCursor: string;
          hasMore: boolean;
        }>();
        for (const event of page.events) {
          seen.push(event.id);
          invoiceIds.push(event.invoiceId);
        }
        if (page.events.length > 0) pagesWithEvents++;
        expect(page.nextCursor).toBe(page.events.at(-1)?.id ?? cursor);
        cursor = page.nextCursor;
        if (!page.hasMore) {
          if (doneBeforeRead && seen.length < EVENTS) throw new Error(`feed ended at ${seen.length} events`);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }
    })();

    await Promise.all(writers);
    writersDone = true;
    await reader;

    expect(seen).toEqual(Array.from({ length: EVENTS }, (_, i) => String(i + 1)));
    expect(new Set(invoiceIds)).toEqual(new Set(created));
    // The reader really overlapped the writers rather than reading one finished feed.
    expect(pagesWithEvents).toBeGreaterThan(Math.ceil(EVENTS / 97));
    const tail = await app.inject({ method: 'GET', url: `${url}/changes?after=${cursor}`, headers });
    expect(tail.json()).toEqual({ events: [], nextCursor: String(EVENTS), hasMore: false });
  },
);
