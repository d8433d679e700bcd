import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { itemKey } from '../../src/modules/invoice-batches/batch.js';
import { waitFor } from '../jobs/support.js';
import { createTestDatabase } from '../support/database.js';
import { freePort, signInOverHttp, startService, type ServiceProcess } from '../support/service-process.js';

const GRANT = 1000;
const database = await createTestDatabase();
const databaseUrl = database.url;
const servicePort = await freePort();
const publicBaseUrl = `http://localhost:${servicePort}`;

// One DATA_DIR for both runs, as a restart has: the second start also stops the killed one's demo chain.
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'invoice-batch-crash-'));
const running: ServiceProcess[] = [];
afterAll(() => Promise.all(running.map((service) => service.stop())));

async function start(): Promise<ServiceProcess> {
  const service = await startService({
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: publicBaseUrl,
    PORT: String(servicePort),
    DATA_DIR: dataDir,
    NEW_WORKSPACE_CREDITS: String(GRANT),
  });
  running.push(service);
  return service;
}

const count = async (query: ReturnType<typeof sql<{ n: bigint }>>) =>
  Number((await query.execute(database.db)).rows[0]!.n);

it(
  'a server killed in the middle of a 25-item batch loses nothing: the retry leaves every item once, numbers gapless, each charged once',
  { timeout: 120_000 },
  async () => {
    const first = await start();
    const headers = await signInOverHttp(publicBaseUrl, publicBaseUrl);
    const workspace = (await (
      await fetch(`${publicBaseUrl}/portal/api/workspaces`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Batches' }),
      })
    ).json()) as { id: string };
    const key = await fetch(`${publicBaseUrl}/portal/api/w/${workspace.id}/keys`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'server', permissions: ['invoices:create', 'invoices:read'] }),
    });
    const apiKey = ((await key.json()) as { secret: string }).secret;

    const batchKey = 'crash-batch-0001';
    const items = Array.from({ length: 25 }, (_, index) => ({
      amount: `${index + 1}.10`,
      externalId: `order-${index}`,
    }));
    const send = () =>
      fetch(`${publicBaseUrl}/w/${workspace.id}/v1/invoice-batches`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, 'idempotency-key': batchKey },
        body: JSON.stringify({ items, budgetCredits: 100 }),
      });

    // Hold item 12 at its idempotency claim, so the server is surely in the middle of the batch when killed.
    const blocker = new pg.Client(database.connection);
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(
      `INSERT INTO idempotency_keys (workspace_id, scope, key, request_hash, expires_at) VALUES ($1, 'invoices.create', $2, '\\x00', now() + interval '1 day')`,
      [workspace.id, itemKey(batchKey, 12)],
    );
    const interrupted = send().catch((error: unknown) => error);
    const invoicesOf = sql<{ n: bigint }>`SELECT count(*) AS n FROM invoices WHERE workspace_id = ${workspace.id}`;
    await waitFor(async () => ((await count(invoicesOf)) === 12 ? true : undefined), 20_000, 'items 0–11');
    await delay(200);
    expect(await count(invoicesOf)).toBe(12);

    await first.kill9();
    running.splice(running.indexOf(first), 1);
    expect(await interrupted).toBeInstanceOf(Error);
    await blocker.query('ROLLBACK');
    await blocker.end();

    await start();
    const retried = await send();
    expect(retried.status).toBe(200);
    const { results } = (await retried.json()) as { results: { invoice?: { number: string; externalId: string } }[] };
    expect(results.map((result) => result.invoice?.externalId)).toEqual(items.map((item) => item.externalId));

    const { rows } = await sql<{
      number: bigint;
      external_id: string;
    }>`SELECT number, external_id FROM invoices WHERE workspace_id = ${workspace.id} ORDER BY number`.execute(
      database.db,
    );
    expect(rows.map((row) => Number(row.number))).toEqual(Array.from({ length: 25 }, (_, index) => index + 1));
    expect(new Set(rows.map((row) => row.external_id)).size).toBe(25);
    expect(
      await count(
        sql<{
          n: bigint;
        }>`SELECT count(*) AS n FROM credit_ledger WHERE workspace_id = ${workspace.id} AND kind = 'invoice.created'`,
      ),
    ).toBe(25);
    const account = await database.db
      .selectFrom('credit_accounts')
      .select(['balance', 'reserved'])
      .where('workspace_id', '=', workspace.id)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({ balance: BigInt(GRANT - 25), reserved: 25n });
  },
);
