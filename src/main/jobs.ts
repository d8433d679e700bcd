import type { Services } from './services.js';
import type pg from 'pg';
import { JobRunner, silentJobLogger, type JobHandlers, type JobLogger } from '../jobs/index.js';
import { CLAIM_WITH_DELIVERY, DELIVERIES_PER_WORKSPACE, DELIVER_WEBHOOK_JOB } from '../modules/webhooks/index.js';
import { NEW_BLOCK } from '../modules/new-blocks/index.js';

/** Every job kind the worker runs, wired to its module (createServices). */
export function jobHandlers(services: Services): JobHandlers {
  return services.jobs;
}

/**
 * Webhook attempts wait on receivers (up to 8 s each), so they get slots of their own: 256, 32 per
 * workspace. Under a backlog a slot spends about half of each delivery waiting on the database (the
 * claim that gives it the job, its attempt's durable commit), so twice the POSTs the sender does best
 * at once (128 here) keep it busy meanwhile: 18% more deliveries a second than 128 slots.
 */
export const WEBHOOK_CONCURRENCY = 256;

/**
 * Payment jobs hold a slot only while they look at the chain and record what they found (a job waiting
 * for a block gives its slot back), so a block that makes many payments due at once is worked through
 * in one or two claims instead of four at a time.
 */
export const PAYMENT_CONCURRENCY = 32;

export interface Workers {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The worker of a process: one runner for webhook deliveries, one for payments and one for everything
 * else, so a slow receiver can hold up other receivers' deliveries a little but never a payment's
 * verification, and cleanups, automations and expiries never make a payment wait for a slot.
 */
export function createWorkers(services: Services, connection: pg.ClientConfig, logger?: JobLogger): Workers {
  const { [DELIVER_WEBHOOK_JOB]: deliver, ...rest } = jobHandlers(services);
  const payments = pick(rest, (kind) => services.paymentJobKinds.includes(kind));
  const others = pick(rest, (kind) => !services.paymentJobKinds.includes(kind));
  // Payment jobs that wait for a block are woken when it arrives, by whichever worker sees it first.
  const blocks = services.payments.newBlockWatcher(logger ?? silentJobLogger);
  const onWait = (signal: string, since: number) => {
    if (signal !== NEW_BLOCK) return false;
    blocks.expect();
    return blocks.sawBlockSince(since);
  };
  const common = { db: services.db, connection, onWait, ...(logger && { logger }) };
  const runners = [
    new JobRunner({ ...common, handlers: others }),
    new JobRunner({ ...common, handlers: payments, concurrency: PAYMENT_CONCURRENCY }),
    new JobRunner({
      ...common,
      handlers: { [DELIVER_WEBHOOK_JOB]: deliver! },
      // Each claim reads the deliveries of the jobs it takes: the handlers start with what they send.
      claimFunction: CLAIM_WITH_DELIVERY,
      concurrency: WEBHOOK_CONCURRENCY,
      // A quarter of the slots a claim: all of them at once moved every slot through claim, POST and
      // result together, in waves, each phase waiting on the others (docs/performance.md).
      maxClaim: WEBHOOK_CONCURRENCY / 4,
      perWorkspaceLimit: DELIVERIES_PER_WORKSPACE,
    }),
  ];
  return {
    start: async () => void (await Promise.all(runners.map((runner) => runner.start()))),
    stop: async () => {
      blocks.stop();
      await Promise.all(runners.map((runner) => runner.stop()));
    },
  };
}

/** Creates the recurring jobs that do not exist yet. Safe on every start of every process. */
export async function scheduleRecurringJobs(services: Pick<Services, 'db' | 'schedules'>): Promise<void> {
  for (const schedule of services.schedules) await schedule(services.db);
}

function pick(handlers: JobHandlers, keep: (kind: string) => boolean): JobHandlers {
  return Object.fromEntries(Object.entries(handlers).filter(([kind]) => keep(kind)));
}
