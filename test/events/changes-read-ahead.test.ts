import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ReadAhead } from '../../src/modules/events/change-feed.read-ahead.js';
import { ChangeFeedService } from '../../src/modules/events/change-feed.service.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant } from '../support/app.js';

const { app, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000', NEW_WORKSPACE_CREDITS: '1000' });
const db = database.db;

interface Page {
  events: { id: string; invoiceId?: string }[];
  nextCursor: string;
  hasMore: boolean;
}

/** A workspace with `count` invoices (as many invoice.created events) and a way to add more. */
async function workspaceWithEvents(count: number) {
  const m = await merchant(app, ['invoices:create', 'invoices:read']);
  let made = 0;
  const create = async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/w/${m.workspaceId}/v1/invoices`,
      headers: { authorization: `Bearer ${m.apiKey}`, 'idempotency-key': `read-ahead-${++made}-${m.workspaceId}` },
      payload: { amount: '1' },
    });
    expect(response.statusCode, response.body).toBe(201);
  };
  for (let i = 0; i < count; i++) await create();
  return { workspaceId: m.workspaceId as WorkspaceId, create };
}

const ids = (json: { toString(): string }) => (JSON.parse(json.toString()) as Page).events.map((event) => event.id);

describe('reading the change feed ahead', () => {
  it('serves the page read ahead exactly as a fresh read would', async () => {
    const { workspaceId } = await workspaceWithEvents(5);
    const feed = new ChangeFeedService({ db });
    const first = JSON.parse((await feed.page(workspaceId, '0', 2)).toString()) as Page;
    expect([first.nextCursor, first.hasMore]).toEqual(['2', true]);
    await feed.readsSettled();
    const second = await feed.page(workspaceId, '2', 2);
    expect(second.toString()).toBe((await new ChangeFeedService({ db }).page(workspaceId, '2', 2)).toString());
    expect(ids(second)).toEqual(['3', '4']);
    await feed.readsSettled();
    // The last page (not full) is read ahead too, and served while nothing new was committed.
    expect(JSON.parse((await feed.page(workspaceId, '4', 2)).toString())).toMatchObject({
      nextCursor: '5',
      hasMore: false,
    });
  });

  it('reads again when events were appended after a page that was not full', async () => {
    const { workspaceId, create } = await workspaceWithEvents(3);
    const feed = new ChangeFeedService({ db });
    await feed.page(workspaceId, '0', 2);
    await feed.readsSettled();
    await create();
    const page = JSON.parse((await feed.page(workspaceId, '2', 2)).toString()) as Page;
    expect(page.events.map((event) => event.id)).toEqual(['3', '4']);
    expect(page.hasMore).toBe(false);
  });

  it('keeps a full page read ahead when events were appended after it', async () => {
    const { workspaceId, create } = await workspaceWithEvents(6);
    const feed = new ChangeFeedService({ db });
    await feed.page(workspaceId, '0', 2);
    await feed.readsSettled();
    await create();
    const page = await feed.page(workspaceId, '2', 2);
    expect(page.toString()).toBe((await new ChangeFeedService({ db }).page(workspaceId, '2', 2)).toString());
  });

  it('answers cursor_expired when retention deleted the events after the page was read ahead', async () => {
    const { workspaceId } = await workspaceWithEvents(6);
    const feed = new ChangeFeedService({ db });
    await feed.page(workspaceId, '0', 2);
    await feed.readsSettled();
    await sql`DELETE FROM events WHERE workspace_id = ${workspaceId} AND id <= 3`.execute(db);
    await sql`UPDATE workspaces SET events_pruned_through = 3 WHERE id = ${workspaceId}`.execute(db);
    await expect(feed.page(workspaceId, '2', 2)).rejects.toMatchObject({ code: 'cursor_expired' });
    // The page after it was started when that page was taken, before the check: it is checked in turn.
    await feed.readsSettled();
    await sql`DELETE FROM events WHERE workspace_id = ${workspaceId} AND id <= 5`.execute(db);
    await sql`UPDATE workspaces SET events_pruned_through = 5 WHERE id = ${workspaceId}`.execute(db);
    await expect(feed.page(workspaceId, '4', 2)).rejects.toMatchObject({ code: 'cursor_expired' });
  });

  it('serves every event once to a reader paging while invoices are created', async () => {
    const { workspaceId, create } = await workspaceWithEvents(7);
    const feed = new ChangeFeedService({ db });
    const seen: string[] = [];
    let cursor = '0';
    for (let round = 0; round < 20; round++) {
      const page = JSON.parse((await feed.page(workspaceId, cursor, 3)).toString()) as Page;
      seen.push(...page.events.map((event) => event.id));
      cursor = page.nextCursor;
      if (round < 4) await create();
      if (!page.hasMore && round >= 4) break;
    }
    expect(seen).toEqual(Array.from({ length: 11 }, (_, index) => String(index + 1)));
  });
});

describe('ReadAhead', () => {
  it('gives a page once, forgets failed reads, and drops old and surplus entries', async () => {
    let now = 0;
    const ahead = new ReadAhead<string>({ maxEntries: 2, maxAgeMs: 100, now: () => now });
    ahead.start('a', async () => 'page a');
    expect(await ahead.take('a')).toBe('page a');
    expect(await ahead.take('a')).toBeUndefined();

    ahead.start('failed', () => Promise.reject(new Error('connection lost')));
    expect(await ahead.take('failed')).toBeUndefined();

    ahead.start('old', async () => 'page old');
    now += 101;
    expect(await ahead.take('old')).toBeUndefined();

    ahead.start('1', async () => 'one');
    ahead.start('2', async () => 'two');
    ahead.start('3', async () => 'three');
    expect(ahead.size).toBe(2);
    expect(await ahead.take('1')).toBeUndefined();
    expect(await ahead.take('3')).toBe('three');
  });
});
