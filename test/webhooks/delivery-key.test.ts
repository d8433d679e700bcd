import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { insertDelivery, insertDeliveriesWithJobs } from '../../src/modules/webhooks/webhook.repo.js';
import { systemClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp } from '../support/app.js';
import { webhookShop } from '../support/webhooks.js';

// The deliveries table laid out as a release that partitions it by week would have it: its key must then
// hold the partition column. This release's writes of a delivery must run on that layout as well as on
// today's, so that its processes go on working while a later release's migration changes the table
// (`ON CONFLICT (workspace_id, event_id)`, as releases before this one wrote it, fails there: 42P10).
const testApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' }, systemClock);
const { db } = testApp.database;
await sql`
  ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_before;
  ALTER TABLE webhook_deliveries_before RENAME CONSTRAINT webhook_deliveries_pkey TO webhook_deliveries_before_pkey;
  CREATE TABLE webhook_deliveries (
    LIKE webhook_deliveries_before INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (workspace_id, event_id, created_at)
  ) PARTITION BY RANGE (created_at);
  CREATE TABLE webhook_deliveries_default PARTITION OF webhook_deliveries DEFAULT;
  CREATE TABLE webhook_deliveries_p20260105 PARTITION OF webhook_deliveries
    FOR VALUES FROM ('2026-01-05 00:00:00+00') TO ('2026-01-12 00:00:00+00');
`.execute(db);

const shop = await webhookShop(testApp);
await shop.configure('https://hooks.example.com/invoices');
const workspaceId = shop.workspaceId as WorkspaceId;
const at = new Date('2026-01-07T10:00:00Z');
const delivery = (eventId: string) => ({ eventId, type: 'invoice.paid', invoiceId: null, body: '{}', at });

const rows = async (eventId: string) => {
  const found = await sql<{ partition: string }>`
    SELECT tableoid::regclass::text AS partition FROM webhook_deliveries
     WHERE workspace_id = ${workspaceId} AND event_id = ${eventId}`.execute(db);
  return found.rows.map((row) => row.partition);
};
const jobs = async (eventId: string) =>
  (await db.selectFrom('jobs').select('id').where('unique_key', '=', `${workspaceId}/${eventId}`).execute()).length;

describe('a delivery written on the deliveries table partitioned by week', () => {
  it('is written once an event, in its week', async () => {
    expect(await insertDelivery(db, workspaceId, delivery('101'))).toBe(true);
    expect(await insertDelivery(db, workspaceId, delivery('101'))).toBe(false);
    expect(await rows('101')).toEqual(['webhook_deliveries_p20260105']);
  });

  it('is written once an event with its job when new events are recorded', async () => {
    await insertDeliveriesWithJobs(db, [{ ...delivery('102'), workspaceId }]);
    await insertDeliveriesWithJobs(db, [{ ...delivery('102'), workspaceId }]);
    expect(await rows('102')).toEqual(['webhook_deliveries_p20260105']);
    expect(await jobs('102')).toBe(1);
  });
});
