import net from 'node:net';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { RUN_AUTOMATION_JOB } from '../../src/modules/automations/index.js';
import { merchant } from '../support/app.js';
import { parseRaw } from '../support/raw-http.js';
import { serviceFleet, until } from '../support/service-fleet.js';
import type { ServiceProcess } from '../support/service-process.js';

const { database, admin, start } = await serviceFleet({ confirmations: 1 });
const { db } = database;
const shop = await merchant(admin, ['invoices:create', 'invoices:read']);
const headers = { authorization: `Bearer ${shop.apiKey}` };
// On PUBLIC_BASE_URL, for both tests; the workers take ports of their own.
const api = await start({ ROLE: 'api' });

/** A daily automation whose first occurrence falls due in half a second; resolves its id. */
async function createAutomation(baseUrl: string, key: string): Promise<string> {
  const response = await fetch(`${baseUrl}/w/${shop.workspaceId}/v1/automations`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({
      name: key,
      template: { amount: '1', externalId: `${key}-{n}` },
      schedule: { every: 'day', startAt: new Date(Date.now() + 500).toISOString() },
    }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** The job that runs the automation (its unique key is the automation's id). */
function runJob(automationId: string) {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('kind', '=', RUN_AUTOMATION_JOB)
    .where('unique_key', '=', automationId)
    .executeTakeFirstOrThrow();
}

/** Whether the process holds the job: `locked_by` is host:pid:suffix. */
function heldBy(job: { locked_by: string | null }, service: ServiceProcess): boolean {
  return job.locked_by?.includes(`:${service.child.pid}:`) ?? false;
}

async function scheduledInvoices(): Promise<number> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('workspace_id', '=', shop.workspaceId)
    .where('source', '=', 'automation')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Jobs whose lease has not run out: held by a running handler, or by a process that left without a word. */
async function liveLeases(): Promise<string[]> {
  const { rows } = await sql<{ kind: string }>`SELECT kind FROM jobs WHERE locked_until > now()`.execute(db);
  return rows.map((row) => row.kind);
}

async function count(query: ReturnType<typeof sql<{ n: number }>>): Promise<number> {
  return (await query.execute(db)).rows[0]!.n;
}

/** Connections LISTENing for new jobs: three for each process that runs jobs, one a runner (src/main/jobs.ts). */
const listeners = () =>
  count(
    sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN jobs'`,
  );
/** The recurring jobs are the ones keyed by their own kind. */
const recurringJobs = () => count(sql`SELECT count(*)::int AS n FROM jobs WHERE unique_key = kind`);
/** The roles of the registered service processes: those that serve HTTP (src/main/start.ts). */
const registeredRoles = async () =>
  (await db.selectFrom('service_processes').select('role').orderBy('role').execute()).map((row) => row.role);
/** What a process's /metrics says of the live HTTP processes, which share the rate limits. */
const liveHttpProcesses = async (service: ServiceProcess) =>
  /^live_http_processes (\d+)$/m.exec(await (await fetch(`${service.localUrl}/metrics`)).text())?.[1];

describe('ROLE', () => {
  it(
    'an api process serves the API and runs no jobs; a worker runs them and serves only health and metrics',
    { timeout: 120_000 },
    async () => {
      expect(api.output()).toContain('Role:           api');
      expect(await listeners()).toBe(0);
      expect(await recurringJobs()).toBe(0);
      expect(await registeredRoles()).toEqual(['api']);

      const automationId = await createAutomation(api.baseUrl, 'roles-api');
      // Due for a second: a runner wakes when a job falls due, so any would have taken it by now.
      await until('the first occurrence to have been due for a second', async () => {
        const { rows } = await sql<{ late: boolean }>`
          SELECT run_at < now() - interval '1 second' AS late FROM jobs WHERE unique_key = ${automationId}
        `.execute(db);
        return rows[0]?.late;
      });
      expect(await runJob(automationId)).toMatchObject({ attempts: 0, locked_by: null });
      expect(await scheduledInvoices()).toBe(0);

      const worker = await start({ ROLE: 'worker' });
      await until('the worker to create the invoice', async () => (await scheduledInvoices()) === 1);
      expect(await listeners()).toBe(3);
      expect(await recurringJobs()).toBeGreaterThan(0);
      // A worker serves no rate-limited route: it is not counted among the HTTP processes.
      expect(await registeredRoles()).toEqual(['api']);
      expect(await liveHttpProcesses(worker)).toBeUndefined();

      const output = worker.output();
      expect(output).toContain('Role:           worker');
      expect(output).toContain(`Health:         http://127.0.0.1:${new URL(worker.localUrl).port}/readyz`);
      expect(output).not.toMatch(/Portal:|API reference:|Demo API key/);

      const get = (url: string) => fetch(url, { headers });
      expect(await (await get(`${worker.localUrl}/readyz`)).json()).toEqual({ status: 'ready' });
      expect((await get(`${worker.localUrl}/healthz`)).status).toBe(200);
      expect(await (await get(`${worker.localUrl}/metrics`)).text()).toContain('process_cpu_seconds_total');
      const paths = [
        `/w/${shop.workspaceId}/v1/automations/${automationId}`,
        `/w/${shop.workspaceId}/i/inv_x`,
        '/portal',
        '/portal/api/workspaces',
        '/auth/nonce',
        '/docs',
      ];
      for (const path of paths) {
        expect({ path, status: (await get(`${worker.localUrl}${path}`)).status }).toEqual({ path, status: 404 });
      }
      // The api process serves them.
      expect((await get(`${api.baseUrl}/w/${shop.workspaceId}/v1/automations/${automationId}`)).status).toBe(200);
      expect(await (await get(`${api.baseUrl}/readyz`)).json()).toEqual({ status: 'ready' });

      expect(await worker.stop()).toBe(0);
      expect(await liveLeases()).toEqual([]);
    },
  );

  it(
    'a worker stopped while its job is stuck hands the job over: a restarted worker takes it at once',
    { timeout: 120_000 },
    async () => {
      const automationId = await createAutomation(api.baseUrl, 'roles-stuck');
      // Holds the automation's row: the run the first worker claims waits on it, deaf to the stop.
      const holder = new pg.Client(database.connection);
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM automations WHERE id = $1 FOR UPDATE', [automationId]);

        const first = await start({ ROLE: 'worker' });
        await until('the first worker to claim the run', async () => heldBy(await runJob(automationId), first));
        await until(
          'its handler to wait on the row',
          async () =>
            (await count(sql`
              SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'
            `)) > 0,
        );

        expect(await first.stop()).toBe(0);
        // Claimable now rather than when the lease would have run out; the attempt counted, as after a crash.
        expect(await liveLeases()).toEqual([]);
        expect(await runJob(automationId)).toMatchObject({ attempts: 1 });
        expect(first.output()).toContain('its job is handed to other workers');

        const restarted = await start({ ROLE: 'worker' });
        await until('the restarted worker to claim the run', async () => heldBy(await runJob(automationId), restarted));
        expect(await runJob(automationId)).toMatchObject({ attempts: 2 });
        await holder.query('COMMIT');
        await until('the invoice of the occurrence', async () => (await scheduledInvoices()) === 2);
        expect(await restarted.stop()).toBe(0);
        expect(await liveLeases()).toEqual([]);
      } finally {
        await holder.end();
      }
    },
  );
  it(
    'an api process stopped mid-request finishes the request and takes no new connections',
    { timeout: 60_000 },
    async () => {
      const stopping = await start({ ROLE: 'api' });
      // Registered before it listens; the other api process counts it at its next heartbeat.
      expect(await registeredRoles()).toEqual(['api', 'api']);
      expect(await liveHttpProcesses(stopping)).toBe('2');
      await until('the first api process to count the second', async () => (await liveHttpProcesses(api)) === '2');
      const port = Number(new URL(stopping.localUrl).port);
      const body = JSON.stringify({
        name: 'In flight',
        template: { amount: '1', externalId: 'in-flight-{n}' },
        schedule: { every: 'day', startAt: new Date(Date.now() + 3_600_000).toISOString() },
      });
      const socket = net.connect(port, '127.0.0.1');
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      const closed = new Promise((resolve) => socket.once('close', resolve));
      const text = () => Buffer.concat(received).toString('latin1');
      // The headers and the start of the body; the server's "100 Continue" says it has taken the request in.
      socket.write(
        [
          `POST /w/${shop.workspaceId}/v1/automations HTTP/1.1`,
          `Host: 127.0.0.1:${port}`,
          `Authorization: Bearer ${shop.apiKey}`,
          'Content-Type: application/json',
          'Idempotency-Key: roles-in-flight',
          'Expect: 100-continue',
          'Connection: close',
          `Content-Length: ${Buffer.byteLength(body)}`,
          '',
          body.slice(0, 20),
        ].join('\r\n'),
      );
      await until('the request to be in flight', async () => text().startsWith('HTTP/1.1 100 Continue\r\n\r\n'));
      const exited = stopping.stop();
      await until('the listener to close', () =>
        fetch(`${stopping.localUrl}/healthz`).then(
          () => false,
          () => true,
        ),
      );
      socket.write(body.slice(20));
      await closed;
      expect(parseRaw(text().slice('HTTP/1.1 100 Continue\r\n\r\n'.length)).status).toBe(201);
      expect(await exited).toBe(0);
      // Its row went with it, so the other takes the whole budget at its next heartbeat.
      expect(await registeredRoles()).toEqual(['api']);
      await until('the first api process to count itself alone', async () => (await liveHttpProcesses(api)) === '1');
    },
  );
});
