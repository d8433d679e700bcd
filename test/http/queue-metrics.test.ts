import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase } from '../../src/db/database.js';
import { buildOpsApp } from '../../src/main/app.js';
import { enqueueJob } from '../../src/jobs/index.js';
import { claimJobs } from '../../src/jobs/claim.js';
import { createServices } from '../../src/main/services.js';
import { DELIVER_WEBHOOK_JOB } from '../../src/modules/webhooks/index.js';
import { ManualClock } from '../../src/shared/clock.js';
import { ORIGIN, createTestApp } from '../support/app.js';
import { webhookShop } from '../support/webhooks.js';

// No worker runs here: what is queued stays queued until the test claims it.
const testApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
const { db } = testApp.database;

async function scrape(app = testApp.app): Promise<string> {
  const response = await app.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  return response.body;
}

/** The value of one series, or undefined when the scrape does not hold it. */
function sample(body: string, name: string, labels = ''): number | undefined {
  const line = body.split('\n').find((candidate) => candidate.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function insertIntent(workspaceId: string, id: string, status: string, age: string) {
  await sql`
    INSERT INTO payment_intents (workspace_id, id, invoice_id, method, status, network, amount, pay_to, link_version, submitted_at, created_at)
    VALUES (${workspaceId}, ${id}, ${`inv_${id}`}, 'transaction', ${status}, 'base-sepolia', 1000000,
            '0x00000000000000000000000000000000000000aa', 1, now(), now() - ${age}::interval)`.execute(db);
}

describe('queue and delivery metrics on /metrics', () => {
  it('reports nothing waiting on an empty queue', async () => {
    const body = await scrape();
    expect(sample(body, 'invoice_service_queue_metrics_ok')).toBe(1);
    expect(sample(body, 'invoice_service_webhook_deliveries', 'status="pending"')).toBe(0);
    expect(sample(body, 'invoice_service_webhook_deliveries', 'status="failed"')).toBe(0);
    expect(sample(body, 'invoice_service_payment_intents_processing')).toBe(0);
    expect(sample(body, 'invoice_service_payment_intents_processing_oldest_age_seconds')).toBe(0);
    expect(body).not.toContain('invoice_service_jobs_due{');
  });

  it('counts due, leased and scheduled jobs per kind, deliveries by status and payments in flight', async () => {
    await enqueueJob(db, { kind: 'metrics.backlog', delaySeconds: -3600 });
    await enqueueJob(db, { kind: 'metrics.backlog' });
    await enqueueJob(db, { kind: 'metrics.backlog', delaySeconds: 600 });
    await enqueueJob(db, { kind: 'metrics.running' });
    await enqueueJob(db, { kind: 'metrics.running' });
    const { rows: claimed } = await claimJobs(db, {
      workerId: 'metrics-test',
      kinds: ['metrics.running'],
      limit: 1,
      leaseSeconds: 60,
    });
    expect(claimed).toHaveLength(1);

    const shop = await webhookShop(testApp);
    await shop.configure('http://127.0.0.1:9/hooks');
    const events = [await shop.emitPaymentEvent(), await shop.emitPaymentEvent(), await shop.emitPaymentEvent()];
    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed' })
      .where('workspace_id', '=', shop.workspaceId)
      .where('event_id', '=', events[0]!)
      .execute();

    await insertIntent(shop.workspaceId, 'pi_metrics_old', 'processing', '2 hours');
    await insertIntent(shop.workspaceId, 'pi_metrics_new', 'processing', '0 seconds');
    await insertIntent(shop.workspaceId, 'pi_metrics_done', 'succeeded', '3 hours');

    const body = await scrape();
    expect(sample(body, 'invoice_service_queue_metrics_ok')).toBe(1);
    // The job scheduled in ten minutes is not due yet.
    expect(sample(body, 'invoice_service_jobs_due', 'kind="metrics.backlog"')).toBe(2);
    expect(
      sample(body, 'invoice_service_jobs_due_oldest_age_seconds', 'kind="metrics.backlog"'),
    ).toBeGreaterThanOrEqual(3600);
    expect(sample(body, 'invoice_service_jobs_leased', 'kind="metrics.backlog"')).toBe(0);
    expect(sample(body, 'invoice_service_jobs_due', 'kind="metrics.running"')).toBe(1);
    expect(sample(body, 'invoice_service_jobs_leased', 'kind="metrics.running"')).toBe(1);
    // Every delivery has its job, the failed one's too until the retention job sweeps it.
    expect(sample(body, 'invoice_service_jobs_due', `kind="${DELIVER_WEBHOOK_JOB}"`)).toBe(3);
    expect(sample(body, 'invoice_service_webhook_deliveries', 'status="pending"')).toBe(2);
    expect(sample(body, 'invoice_service_webhook_deliveries', 'status="failed"')).toBe(1);
    expect(sample(body, 'invoice_service_payment_intents_processing')).toBe(2);
    expect(sample(body, 'invoice_service_payment_intents_processing_oldest_age_seconds')).toBeGreaterThanOrEqual(7200);
    expect(sample(body, 'invoice_service_payment_intents_processing_oldest_age_seconds')).toBeLessThan(10800);
    // The process metrics are still there.
    expect(body).toContain('process_cpu_seconds_total');

    // A worker's HTTP app serves the same gauges.
    const worker = await buildOpsApp(testApp.services, { logger: false });
    try {
      const fromWorker = await scrape(worker);
      expect(sample(fromWorker, 'invoice_service_jobs_due', 'kind="metrics.backlog"')).toBe(2);
      expect(sample(fromWorker, 'invoice_service_jobs_leased', 'kind="metrics.running"')).toBe(1);
      expect(sample(fromWorker, 'invoice_service_webhook_deliveries', 'status="pending"')).toBe(2);
      expect(sample(fromWorker, 'invoice_service_payment_intents_processing')).toBe(2);
    } finally {
      await worker.close();
    }
  });

  it('keeps a kind at 0 once its queue is empty, rather than dropping it', async () => {
    const id = await enqueueJob(db, { kind: 'metrics.drained', delaySeconds: -60 });
    expect(sample(await scrape(), 'invoice_service_jobs_due', 'kind="metrics.drained"')).toBe(1);
    await db.deleteFrom('jobs').where('id', '=', id!).execute();
    const body = await scrape();
    expect(sample(body, 'invoice_service_jobs_due', 'kind="metrics.drained"')).toBe(0);
    expect(sample(body, 'invoice_service_jobs_due_oldest_age_seconds', 'kind="metrics.drained"')).toBe(0);
    expect(sample(body, 'invoice_service_jobs_leased', 'kind="metrics.drained"')).toBe(0);
  });

  it('answers with the process metrics and logs, leaving the queue gauges out, when the database cannot be read', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    // A socket directory that does not exist: every connection fails at once.
    const unreachable = openDatabase({ host: '/nonexistent/invoice-service-socket', database: 'none' });
    const services = createServices(loadConfig({ PUBLIC_BASE_URL: ORIGIN }), unreachable.db, new ManualClock());
    const worker = await buildOpsApp(services, { logger: { level: 'warn', stream } });
    try {
      const body = await scrape(worker);
      expect(body).toContain('process_cpu_seconds_total');
      expect(sample(body, 'invoice_service_queue_metrics_ok')).toBe(0);
      expect(sample(body, 'invoice_service_webhook_deliveries', 'status="pending"')).toBeUndefined();
      expect(sample(body, 'invoice_service_payment_intents_processing')).toBeUndefined();
      expect(body).not.toMatch(/^invoice_service_jobs_due\{/m);
      const warnings = lines.map((line) => JSON.parse(line) as { msg: string });
      for (const what of ['the job queue', 'webhook deliveries', 'payments in flight']) {
        // Once per scrape, however many gauges show it.
        expect(warnings.filter((warning) => warning.msg.includes(`could not read ${what}`))).toHaveLength(1);
      }
    } finally {
      await worker.close();
      await unreachable.close();
    }
  });
});
