import { sql } from 'kysely';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { FORGET_SECONDS, LIVE_SECONDS, ProcessRegistry } from '../../src/modules/service-processes/index.js';
import { createTestDatabase } from '../support/database.js';

const database = await createTestDatabase();
const { db } = database;
const started: ProcessRegistry[] = [];
afterAll(() => Promise.all(started.map((registry) => registry.stop())));

/** A registry standing for one more process on the database. */
async function startProcess(role: 'all' | 'api' | 'worker', heartbeatMs?: number) {
  const registry = new ProcessRegistry({ db, role, ...(heartbeatMs && { heartbeatMs }) });
  await registry.start();
  started.push(registry);
  return registry;
}

/** Moves a process's last heartbeat `seconds` into the past, as if it had stopped beating then. */
async function lastSeen(registry: ProcessRegistry, seconds: number) {
  await db
    .updateTable('service_processes')
    .set({ seen_at: sql<Date>`now() - make_interval(secs => ${seconds})` })
    .where('id', '=', registry.id)
    .execute();
}

const ids = async () =>
  (await db.selectFrom('service_processes').select('id').orderBy('id').execute()).map((row) => row.id);

describe('service process registry', () => {
  it('two registrations see each other; workers are listed but not counted; a stopped one disappears', async () => {
    const first = await startProcess('api');
    expect(first.httpProcesses()).toBe(1);
    const second = await startProcess('all');
    const worker = await startProcess('worker');
    expect(second.httpProcesses()).toBe(2);
    expect(worker.httpProcesses()).toBe(2);
    expect(await first.refresh()).toBe(2);
    expect(first.httpProcesses()).toBe(2);
    const row = await db
      .selectFrom('service_processes')
      .selectAll()
      .where('id', '=', second.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ role: 'all', started_at: expect.any(Date), seen_at: expect.any(Date) });

    await second.stop();
    await worker.stop();
    expect(await ids()).toEqual([first.id]);
    expect(await first.refresh()).toBe(1);
    await first.stop();
    expect(await ids()).toEqual([]);
  });

  it('counts only processes seen lately, and deletes those unseen for a minute', async () => {
    const live = await startProcess('api');
    const quiet = await startProcess('api');
    const gone = await startProcess('api');
    expect(await live.refresh()).toBe(3);
    await lastSeen(quiet, LIVE_SECONDS + 1);
    await lastSeen(gone, FORGET_SECONDS + 1);
    expect(await live.refresh()).toBe(1);
    // The quiet one is kept (it may only be slow) and counts again once it beats; the gone one is deleted.
    expect(await ids()).toEqual([live.id, quiet.id].sort());
    await quiet.refresh();
    expect(await live.refresh()).toBe(2);
    await Promise.all([live.stop(), quiet.stop(), gone.stop()]);
  });

  it('keeps the count fresh in the background', async () => {
    const watching = await startProcess('api', 10);
    const joining = await startProcess('all');
    await vi.waitFor(() => expect(watching.httpProcesses()).toBe(2), { timeout: 30_000, interval: 10 });
    await joining.stop();
    await vi.waitFor(() => expect(watching.httpProcesses()).toBe(1), { timeout: 30_000, interval: 10 });
    await watching.stop();
  });

  it('keeps the last count and reports the error when a heartbeat fails', async () => {
    const other = await startProcess('api');
    const handle = openDatabase(database.connection, 1);
    const registry = new ProcessRegistry({ db: handle.db, role: 'api', heartbeatMs: 10 });
    const errors: unknown[] = [];
    await registry.start((error) => errors.push(error));
    expect(registry.httpProcesses()).toBe(2);
    await handle.close();
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 30_000, interval: 10 });
    expect(registry.httpProcesses()).toBe(2);
    await expect(registry.refresh()).rejects.toThrow();
    await expect(registry.stop()).rejects.toThrow();
    // Its row stays behind, as after a crash, until the others forget it.
    await lastSeen(registry, FORGET_SECONDS + 1);
    expect(await other.refresh()).toBe(1);
    expect(await ids()).toEqual([other.id]);
    await other.stop();
  });
});
