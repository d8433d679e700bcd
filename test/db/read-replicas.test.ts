import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase } from '../../src/db/database.js';
import { ReadReplicas } from '../../src/db/read-replicas.js';
import { ChangeFeedService } from '../../src/modules/events/change-feed.service.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { buildApp } from '../../src/main/app.js';
import { startDatabase } from '../../src/main/database.js';
import { createServices } from '../../src/main/services.js';
import { systemClock } from '../../src/shared/clock.js';
import { BASE_URL, GENEROUS_LIMITS, merchant } from '../support/app.js';
import { primaryWithReplica } from '../support/streaming-replica.js';

const { primary, replica } = await primaryWithReplica();
const config = loadConfig({
  PUBLIC_BASE_URL: BASE_URL,
  DATABASE_URL: primary.url,
  DATABASE_READ_URL: replica.url,
  API_RATE_LIMIT_PER_MINUTE: '10000000',
  NEW_WORKSPACE_CREDITS: '100000',
  // Long enough that a list read right after a write is surely within it on a loaded machine.
  DATABASE_READ_MAX_LAG_MS: '3000',
  ...GENEROUS_LIMITS,
});
const database = await startDatabase(config, () => {});
const services = createServices(config, database.db, systemClock);
const app: FastifyInstance = await buildApp(services, { logger: false });
afterAll(async () => {
  await app.close();
  await database.shutdown();
});

const shop = await merchant(app, ['invoices:create', 'invoices:read', 'billing:read', 'payments:read']);
let keys = 0;

function call(method: 'GET' | 'POST', url: string, payload?: object) {
  return app.inject({
    method,
    url: url.startsWith('/portal') ? url : `/w/${shop.workspaceId}/v1${url}`,
    headers: url.startsWith('/portal')
      ? { cookie: shop.cookie, origin: BASE_URL }
      : {
          authorization: `Bearer ${shop.apiKey}`,
          ...(method === 'POST' && { 'idempotency-key': `replica-${++keys}` }),
        },
    ...(payload && { payload }),
  });
}

async function createInvoice(externalId?: string): Promise<{ id: string; number: string }> {
  const response = await call('POST', '/invoices', { amount: '1.25', ...(externalId && { externalId }) });
  expect(response.statusCode).toBe(201);
  return response.json();
}

/** Every read the replicas take, each answered 200, with how long each took. */
async function routedReads(number: string): Promise<{ url: string; status: number; ms: number }[]> {
  const urls = [
    '/changes?after=0&limit=100',
    '/invoices?limit=20',
    `/invoice-search?q=${number}`,
    '/invoices/export',
    '/statement',
    `/portal/api/w/${shop.workspaceId}/dashboard`,
  ];
  const answers = [];
  for (const url of urls) {
    const started = Date.now();
    const response = await call('GET', url);
    answers.push({ url, status: response.statusCode, ms: Date.now() - started });
  }
  return answers;
}

/** Scans the replica itself counted on the invoices and events tables (its own statistics). */
async function replicaScans(): Promise<number> {
  const client = new pg.Client({ connectionString: replica.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ scans: string }>(
      `SELECT sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text AS scans
         FROM pg_stat_user_tables WHERE relname IN ('invoices', 'events')`,
    );
    return Number(rows[0]!.scans);
  } finally {
    await client.end();
  }
}

async function onReplica<T>(statement: string): Promise<T> {
  const client = new pg.Client({ connectionString: replica.url });
  await client.connect();
  try {
    return (await client.query(statement)).rows[0] as T;
  } finally {
    await client.end();
  }
}

function replicaReads(): number {
  return services.readReplicas!.status().reduce((sum, replica) => sum + replica.reads, 0);
}

function primaryReads(): number {
  return Object.values(services.readReplicas!.primaryStatus()).reduce((sum, reads) => sum + reads, 0);
}

async function serving(expected: boolean): Promise<void> {
  await expect.poll(() => services.readReplicas!.status()[0]!.serving, { timeout: 15_000 }).toBe(expected);
}

describe('reads on a streaming replica (DATABASE_READ_URL)', () => {
  it('serves the feed, lists, search, the export, the statement and the dashboard from the replica', async () => {
    const { number } = await createInvoice('order-1');
    await serving(true);
    await expect.poll(async () => (await call('GET', `/invoice-search?q=${number}`)).json().invoices.length).toBe(1);
    const scansBefore = await replicaScans();
    const [onReplicaBefore, onPrimaryBefore] = [replicaReads(), primaryReads()];
    const answers = await routedReads(number);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(replicaReads()).toBeGreaterThanOrEqual(onReplicaBefore + answers.length);
    expect(primaryReads()).toBe(onPrimaryBefore);
    // The replica's own statistics: its backends flush them late (here when the pool closes them idle, 10 s).
    await expect.poll(replicaScans, { timeout: 25_000, interval: 500 }).toBeGreaterThan(scansBefore);
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/invoice_service_db_replica_reads_total\{replica="[^"]+"\} [1-9]/);
    expect(metrics).toMatch(/invoice_service_db_replica_lag_seconds\{replica="[^"]+"\} \d/);
    expect(metrics).toMatch(/invoice_service_db_replica_up\{replica="[^"]+"\} 1/);
  });

  it('reads what the client just wrote on the primary, even while the replica replays nothing', async () => {
    await onReplica('SELECT pg_wal_replay_pause()');
    // The pause is a request: replay stops at its next record, so wait until it has.
    await expect
      .poll(async () => (await onReplica<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state')).state)
      .toBe('paused');
    try {
      const created = await createInvoice('order-paused');
      const read = await call('GET', `/invoices/${created.id}`);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toMatchObject({ id: created.id, number: created.number });
      // The list reads the replica, which is within the bound and has not replayed the create yet.
      const stale = (await call('GET', '/invoices?limit=5')).json<{ invoices: { id: string }[] }>();
      expect(services.readReplicas!.status()[0]!.serving).toBe(true);
      expect(stale.invoices.map((invoice) => invoice.id)).not.toContain(created.id);

      // A process that starts now finds the replica behind every position it has read: not serving.
      const starting = new ReadReplicas(
        { pool: database.pool, connection: { connectionString: primary.url } },
        [replica.url],
        3000,
      );
      await starting.start();
      expect(starting.status()[0]).toMatchObject({ up: true, serving: false });
      await starting.stop();

      // A feed reader whose cursor came from the primary, then meets the replica behind it: the primary
      // answers, never `invalid_cursor` and never an event again.
      const replicaDb = openDatabase({ connectionString: replica.url }, 1);
      try {
        const feed = new ChangeFeedService({ db: database.db, reads: replicaDb.db });
        const workspaceId = shop.workspaceId as WorkspaceId;
        const onPrimary = JSON.parse(
          (await new ChangeFeedService({ db: database.db }).page(workspaceId, '0', 1000)).toString(),
        );
        const behind = JSON.parse((await feed.page(workspaceId, onPrimary.nextCursor, 10)).toString());
        expect(behind).toEqual({ events: [], nextCursor: onPrimary.nextCursor, hasMore: false });
        const last = onPrimary.events.at(-1);
        expect(last.data.invoice.id).toBe(created.id);
        // A cursor the replica knows reads there: a shorter page than the primary's, never a different one.
        const before = String(BigInt(last.id) - 1n);
        expect(JSON.parse((await feed.page(workspaceId, before, 10)).toString())).toEqual({
          events: [],
          nextCursor: before,
          hasMore: false,
        });
      } finally {
        await replicaDb.close();
      }
      // Past the lag bound, lists leave the replica for the primary and show it too.
      await serving(false);
      const list = (await call('GET', '/invoices?limit=5')).json<{ invoices: { id: string }[] }>();
      expect(list.invoices.map((invoice) => invoice.id)).toContain(created.id);
      expect(services.readReplicas!.primaryStatus().lagging).toBeGreaterThan(0);
      const ready = (await app.inject({ method: 'GET', url: '/readyz' })).json<{ warnings?: string[] }>();
      expect(ready.warnings?.join('\n')).toMatch(/read replica .* behind the primary/);
    } finally {
      await onReplica('SELECT pg_wal_replay_resume()');
    }
    await serving(true);
  });

  it('a feed reader following nextCursor through a burst of creates sees every event exactly once', async () => {
    const latest = async () =>
      BigInt(
        (
          await database.pool.query<{ seq: string }>('SELECT event_seq::text AS seq FROM workspaces WHERE id = $1', [
            shop.workspaceId,
          ])
        ).rows[0]!.seq,
      );
    const start = await latest();
    const onReplicaBefore = replicaReads();
    let creating = true;
    const burst = (async () => {
      try {
        for (let round = 0; round < 20; round++) await Promise.all(Array.from({ length: 10 }, () => createInvoice()));
      } finally {
        creating = false;
      }
    })();
    const seen: bigint[] = [];
    let cursor = start;
    for (;;) {
      const response = await call('GET', `/changes?after=${cursor}&limit=25`);
      expect(response.statusCode).toBe(200);
      const page = response.json<{ events: { id: string }[]; nextCursor: string; hasMore: boolean }>();
      seen.push(...page.events.map((event) => BigInt(event.id)));
      cursor = BigInt(page.nextCursor);
      if (!creating && !page.hasMore && cursor === (await latest())) break;
    }
    await burst;
    const expected = Array.from({ length: Number(cursor - start) }, (_, index) => start + BigInt(index) + 1n);
    expect(seen).toEqual(expected);
    expect(seen.length).toBeGreaterThanOrEqual(200);
    expect(replicaReads()).toBeGreaterThan(onReplicaBefore);
  });

  it('with the replica stopped every read answers from the primary within 5 s, and the replica comes back by itself', async () => {
    const { number } = await createInvoice();
    await replica.stop();
    const answers = await routedReads(number);
    for (const answer of answers) {
      expect(answer.status, answer.url).toBe(200);
      expect(answer.ms, answer.url).toBeLessThan(5_000);
    }
    await serving(false);
    expect(services.readReplicas!.status()[0]!.up).toBe(false);
    const ready = (await app.inject({ method: 'GET', url: '/readyz' })).json<{ warnings?: string[] }>();
    expect(ready.warnings?.join('\n')).toMatch(/read replica .* does not answer/);

    await replica.start();
    await serving(true);
    const before = replicaReads();
    expect((await call('GET', '/invoices?limit=5')).statusCode).toBe(200);
    expect(replicaReads()).toBeGreaterThan(before);
  });
});
