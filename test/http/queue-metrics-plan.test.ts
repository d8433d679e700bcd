import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobBacklog } from '../../src/jobs/index.js';
import { paymentsInFlight } from '../../src/modules/payment-engine/index.js';
import { webhookDeliveryBacklog } from '../../src/modules/webhooks/index.js';
import { createTestDatabase } from '../support/database.js';
import { planOf as planOfStatement } from '../support/query-plan.js';

// The queries behind the queue gauges run on every scrape of every process: with the history of a busy
// service in the tables, each must read only what is waiting, through an index, never a whole table.

const database = await createTestDatabase();
const { db } = database;
const HISTORY = 20_000;
const WORKSPACE = 'ws_metricsplan';

beforeAll(async () => {
  await sql`INSERT INTO workspaces (id, name, wallet_address) VALUES (${WORKSPACE}, 'Shop', '0x00000000000000000000000000000000000000aa')`.execute(
    db,
  );
  // Finished payment attempts, and three in flight.
  await sql`
    INSERT INTO payment_intents (workspace_id, id, invoice_id, method, status, network, amount, pay_to, link_version, submitted_at)
    SELECT ${WORKSPACE}, 'pi_' || n, 'inv_' || n, 'transaction', CASE WHEN n <= 3 THEN 'processing' WHEN n % 5 = 0 THEN 'failed' ELSE 'succeeded' END,
           'base-sepolia', 1000000, '0x00000000000000000000000000000000000000aa', 1, now()
      FROM generate_series(1, ${HISTORY}::int) n`.execute(db);
  // Delivered webhooks, and a few pending and failed.
  await sql`
    INSERT INTO webhook_deliveries (workspace_id, event_id, type, body, status, window_started_at, created_at)
    SELECT ${WORKSPACE}, n::text, 'payment_intent.succeeded', '{}', CASE WHEN n <= 4 THEN 'pending' WHEN n <= 6 THEN 'failed' ELSE 'succeeded' END,
           now(), now()
      FROM generate_series(1, ${HISTORY}::int) n`.execute(db);
  // Failed jobs kept for inspection and jobs scheduled later; five due now.
  await sql`
    INSERT INTO jobs (kind, run_at, failed_at)
    SELECT 'metrics.plan', CASE WHEN n <= 5 THEN now() - interval '1 minute' WHEN n % 2 = 0 THEN now() + interval '1 day' ELSE now() - interval '1 day' END,
           CASE WHEN n > 5 AND n % 2 = 1 THEN now() END
      FROM generate_series(1, ${HISTORY}::int) n`.execute(db);
  for (const table of ['payment_intents', 'webhook_deliveries', 'jobs'])
    await sql`ANALYZE ${sql.table(table)}`.execute(db);
});

const planOf = (read: Parameters<typeof planOfStatement>[1]) => planOfStatement(database.pool, read);

describe('queue gauge queries, with a long history in the tables', () => {
  it('read the due jobs through jobs_due_idx', async () => {
    const plan = await planOf(jobBacklog);
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan).toMatch(/jobs_due_idx/);
    expect(await jobBacklog(db)).toEqual([
      { kind: 'metrics.plan', due: 5, oldestDueSeconds: expect.any(Number), leased: 0 },
    ]);
  });

  it('count pending and failed deliveries on their partial indexes', async () => {
    const plan = await planOf(webhookDeliveryBacklog);
    // The partition holding the history (the week's partitions around it are empty: scanned for nothing).
    const { rows } = await sql<{ partition: string }>`
      SELECT DISTINCT tableoid::regclass::text AS partition FROM webhook_deliveries`.execute(db);
    expect(rows).toHaveLength(1);
    const partition = rows[0]!.partition;
    expect(plan).not.toMatch(new RegExp(`Seq Scan on ${partition} `));
    const indexScans = plan.match(new RegExp(`Index Only Scan using \\S+ on ${partition} `, 'g'));
    expect(indexScans).toHaveLength(2);
    expect(await webhookDeliveryBacklog(db)).toEqual({ pending: 4, failed: 2 });
  });

  it('count the payments in flight on payment_intents_processing_idx', async () => {
    const plan = await planOf(paymentsInFlight);
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan).toMatch(/payment_intents_processing_idx/);
    expect(await paymentsInFlight(db)).toEqual({ count: 3, oldestSeconds: expect.any(Number) });
  });
});
