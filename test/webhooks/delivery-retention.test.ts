import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { pruneDeliveries, pruneWebhookHistory } from '../../src/modules/webhooks/webhook.repo.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestDatabase } from '../support/database.js';
import { planOf } from '../support/query-plan.js';

// The hourly retention deletes the finished deliveries past 30 days. With a month of deliveries in the
// table, it must read the few it deletes, not the whole history.

const database = await createTestDatabase();
const { db } = database;
const WORKSPACES = ['ws_retain_a', 'ws_retain_b', 'ws_retain_c'] as WorkspaceId[];
const RECENT = 20_000;
const now = new Date('2031-03-10T12:00:00Z');
const cutoff = new Date(now.getTime() - 30 * 86_400_000);
const old = new Date(cutoff.getTime() - 3_600_000);

beforeAll(async () => {
  await sql`INSERT INTO workspaces (id, name, wallet_address)
            SELECT id, 'Shop', '0x00000000000000000000000000000000000000aa' FROM unnest(${WORKSPACES}::text[]) id`.execute(
    db,
  );
  // Each workspace: an old delivery of each status, then a month of recent ones.
  await sql`
    INSERT INTO webhook_deliveries (workspace_id, event_id, type, body, status, window_started_at, created_at)
    SELECT w, 'old_' || status, 'payment_intent.succeeded', '{}', status, ${old}, ${old}
      FROM unnest(${WORKSPACES}::text[]) w, unnest(ARRAY['succeeded', 'failed', 'pending']) status`.execute(db);
  await sql`
    INSERT INTO webhook_deliveries (workspace_id, event_id, type, body, status, window_started_at, created_at)
    SELECT (${WORKSPACES}::text[])[1 + n % 3], n::text, 'payment_intent.succeeded', '{}', 'succeeded',
           ${now}::timestamptz - make_interval(secs => n * 120), ${now}::timestamptz - make_interval(secs => n * 120)
      FROM generate_series(1, ${RECENT}::int) n`.execute(db);
  await sql`ANALYZE webhook_deliveries`.execute(db);
});

const left = async () =>
  (
    await db
      .selectFrom('webhook_deliveries')
      .select(['workspace_id', 'event_id'])
      .where('event_id', 'like', 'old_%')
      .orderBy('workspace_id')
      .execute()
  ).map((row) => `${row.workspace_id} ${row.event_id}`);

describe('the retention of finished deliveries', () => {
  it('deletes every workspace’s finished deliveries past the cutoff, a few workspaces a statement, and keeps pending ones', async () => {
    expect(await pruneWebhookHistory(db, cutoff, 2)).toBe(6);
    expect(await left()).toEqual(WORKSPACES.map((workspace) => `${workspace} old_pending`));
    const { count } = await db
      .selectFrom('webhook_deliveries')
      .select(sql<number>`count(*)::int`.as('count'))
      .executeTakeFirstOrThrow();
    expect(count).toBe(RECENT + WORKSPACES.length);
  });

  it('reads only the old entries of the workspaces it names, through the index', async () => {
    // Planned by running it: after the test above, it deletes nothing.
    const plan = await planOf(database.pool, (recording) =>
      pruneDeliveries(recording, 'webhook_deliveries_default', WORKSPACES, cutoff),
    );
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan).toMatch(/Index Cond: \(\(workspace_id = ANY .*created_at < /);
  });
});
