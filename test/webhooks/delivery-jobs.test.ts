import { describe, expect, it } from 'vitest';
import { claimJobs } from '../../src/jobs/claim.js';
import type { JobClaim } from '../../src/jobs/index.js';
import { append } from '../../src/modules/events/index.js';
import { CLAIM_WITH_DELIVERY, DELIVER_WEBHOOK_JOB } from '../../src/modules/webhooks/index.js';
import { deliveryFromClaim, findDeliveriesToSend } from '../../src/modules/webhooks/webhook.repo.js';
import { systemClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp } from '../support/app.js';
import { startTestReceiver } from '../support/webhook-receiver.js';
import { webhookShop } from '../support/webhooks.js';

// No worker runs here: each test claims the delivery job itself and makes the attempt as the job would.
const testApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '60' }, systemClock);
const { db } = testApp.database;
const deliverer = testApp.services.webhookDeliverer;

/** A workspace whose endpoint answers `status`, with one pending delivery and its job claimed. */
async function claimedDelivery(status: number) {
  const receiver = await startTestReceiver(() => ({ status }));
  const shop = await webhookShop(testApp);
  await shop.configure(receiver.url);
  const eventId = await shop.emitPaymentEvent();
  const { rows } = await claimJobs(db, {
    workerId: `test-${eventId}`,
    kinds: [DELIVER_WEBHOOK_JOB],
    limit: 100,
    leaseSeconds: 30,
  });
  const row = rows.find((job) => job.unique_key === `${shop.workspaceId}/${eventId}`)!;
  const claim: JobClaim = { id: row.id, workerId: `test-${eventId}`, attempts: row.attempts };
  return { workspaceId: shop.workspaceId as WorkspaceId, eventId, claim };
}

const jobExists = async (id: bigint) =>
  (await db.selectFrom('jobs').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

const deliveryStatus = async (workspaceId: WorkspaceId, eventId: string) =>
  (
    await db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('workspace_id', '=', workspaceId)
      .where('event_id', '=', eventId)
      .executeTakeFirstOrThrow()
  ).status;

describe('the attempt that ends a delivery', () => {
  it('deletes the delivery job in the commit of its result', async () => {
    const { workspaceId, eventId, claim } = await claimedDelivery(200);
    expect(await deliverer.attempt(workspaceId, eventId, { job: claim })).toEqual({ done: true, jobDeleted: true });
    expect(await deliveryStatus(workspaceId, eventId)).toBe('succeeded');
    expect(await jobExists(claim.id)).toBe(false);
  });

  it('leaves the job of a delivery that will be retried', async () => {
    const { workspaceId, eventId, claim } = await claimedDelivery(500);
    expect(await deliverer.attempt(workspaceId, eventId, { job: claim })).toMatchObject({ done: false });
    expect(await deliveryStatus(workspaceId, eventId)).toBe('pending');
    expect(await jobExists(claim.id)).toBe(true);
  });

  it('leaves the job to its new holder when the claim was lost, and still records the result', async () => {
    const { workspaceId, eventId, claim } = await claimedDelivery(200);
    // Another worker took the job over after this one's lease lapsed: its attempt counts one more.
    await db
      .updateTable('jobs')
      .set({ attempts: claim.attempts + 1, locked_by: 'other' })
      .where('id', '=', claim.id)
      .execute();
    expect(await deliverer.attempt(workspaceId, eventId, { job: claim })).toEqual({ done: true, jobDeleted: false });
    expect(await deliveryStatus(workspaceId, eventId)).toBe('succeeded');
    expect(await jobExists(claim.id)).toBe(true);
  });
});

describe("the delivery runner's claim", () => {
  it('reads each claimed delivery as the job would read it, and nothing where the endpoint is gone', async () => {
    const receiver = await startTestReceiver();
    const [kept, removed] = [await webhookShop(testApp), await webhookShop(testApp)];
    for (const shop of [kept, removed]) await shop.configure(receiver.url);
    const keys = [
      { workspaceId: kept.workspaceId as WorkspaceId, eventId: await kept.emitPaymentEvent() },
      { workspaceId: removed.workspaceId as WorkspaceId, eventId: await removed.emitPaymentEvent() },
    ];
    const [expected] = await findDeliveriesToSend(db, [keys[0]!]);
    await db.deleteFrom('webhook_endpoints').where('workspace_id', '=', removed.workspaceId).execute();

    const { rows } = await claimJobs(db, {
      workerId: 'test-claim',
      kinds: [DELIVER_WEBHOOK_JOB],
      limit: 100,
      leaseSeconds: 30,
      claimFunction: CLAIM_WITH_DELIVERY,
      perWorkspace: { limit: 8, running: new Map() },
    });
    const details = (key: (typeof keys)[number]) =>
      rows.find((job) => job.unique_key === `${key.workspaceId}/${key.eventId}`)!.details;
    expect(expected).toBeDefined();
    expect(deliveryFromClaim(keys[0]!, details(keys[0]!))).toEqual(expected);
    expect(details(keys[1]!)).toBeNull();
    expect(deliveryFromClaim(keys[1]!, details(keys[1]!))).toBeUndefined();
  });

  it('never misses the delivery of a job committed while the claim runs', async () => {
    const receiver = await startTestReceiver();
    const shop = await webhookShop(testApp);
    await shop.configure(receiver.url);
    const workspaceId = shop.workspaceId as WorkspaceId;
    // Events keep committing, each with its delivery and job, while claims run back to back: a claim
    // that reads deliveries with a snapshot older than its own would now and then take a job whose
    // delivery it cannot see.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        written += 1;
        await db.transaction().execute((trx) =>
          append(trx, workspaceId, {
            type: 'payment_intent.succeeded',
            invoiceId: `inv_race${written}`,
            paymentIntentId: `pi_race${written}`,
            data: { paymentIntent: { id: `pi_race${written}`, status: 'succeeded', amount: '5.000000' } },
            at: new Date(),
          }),
        );
      }
    })();
    const missed: string[] = [];
    let claimed = 0;
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      const { rows } = await claimJobs(db, {
        workerId: 'test-race',
        kinds: [DELIVER_WEBHOOK_JOB],
        limit: 1_000,
        leaseSeconds: 30,
        claimFunction: CLAIM_WITH_DELIVERY,
        perWorkspace: { limit: 1_000, running: new Map() },
      });
      for (const job of rows.filter((row) => row.workspace_id === workspaceId)) {
        claimed += 1;
        if (job.details === null) missed.push(job.unique_key!);
      }
    }
    writing = false;
    await writer;
    expect(claimed).toBeGreaterThan(50);
    expect(missed).toEqual([]);
  });
});
