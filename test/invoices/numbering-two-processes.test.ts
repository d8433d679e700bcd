import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { freePort, signInOverHttp, startService, type ServiceProcess } from '../support/service-process.js';

const CREATES = 200;
const GRANT = 1000;

const database = await createTestDatabase();
const databaseUrl = database.url;
const basePort = await freePort();
const publicBaseUrl = `http://localhost:${basePort}`;

const processes: ServiceProcess[] = [];
afterAll(async () => {
  await Promise.all(processes.map((service) => service.stop()));
});

async function start(portNumber?: number): Promise<ServiceProcess> {
  const service = await startService({
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: publicBaseUrl,
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'invoice-numbering-')),
    NEW_WORKSPACE_CREDITS: String(GRANT),
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    ...(portNumber ? { PORT: String(portNumber) } : {}),
  });
  processes.push(service);
  return service;
}

/** Signs in over HTTP (SIWE), creates a workspace and a key; returns the workspace id and the key. */
async function merchantOver(urls: readonly string[]) {
  const headers = await signInOverHttp(urls[0]!, publicBaseUrl);
  const workspace = await fetch(`${urls[1]}/portal/api/workspaces`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Numbering' }),
  });
  expect(workspace.status).toBe(201);
  const { id } = (await workspace.json()) as { id: string };
  const key = await fetch(`${urls[0]}/portal/api/w/${id}/keys`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'server', permissions: ['invoices:create', 'payments:read', 'billing:read'] }),
  });
  expect(key.status).toBe(201);
  return { workspaceId: id, apiKey: ((await key.json()) as { secret: string }).secret };
}

it(
  `numbers ${CREATES} concurrent creates from two server processes INV-000001…INV-000200 without gap or duplicate`,
  { timeout: 120_000 },
  async () => {
    const [, second] = await Promise.all([start(basePort), start()]);
    const urls = [publicBaseUrl, `http://localhost:${new URL(second!.baseUrl).port}`] as const;
    const { workspaceId, apiKey } = await merchantOver(urls);
    const run = randomBytes(4).toString('hex');

    const create = (i: number, url: string) =>
      fetch(`${url}/w/${workspaceId}/v1/invoices`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${apiKey}`,
          'idempotency-key': `order-${run}-${i}`,
        },
        body: JSON.stringify({ amount: `${i + 1}.25`, externalId: `order-${i}` }),
      }).then(async (response) => ({
        status: response.status,
        replayed: response.headers.get('idempotent-replayed'),
        body: (await response.json()) as Record<string, string>,
      }));

    const results = await Promise.all(Array.from({ length: CREATES }, (_, i) => create(i, urls[i % 2]!)));
    expect(
      results.filter((result) => result.status !== 201).map((result) => [result.status, result.body.code]),
    ).toEqual([]);

    const expected = Array.from({ length: CREATES }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`);
    expect(results.map((result) => result.body.number).sort()).toEqual(expected);
    expect(new Set(results.map((result) => result.body.id)).size).toBe(CREATES);
    // Each response's number is the one stored for its invoice, which holds the request's own fields.
    const stored = await database.db
      .selectFrom('invoices')
      .select(['id', 'number', 'external_id'])
      .where('workspace_id', '=', workspaceId)
      .execute();
    expect(stored).toHaveLength(CREATES);
    const byId = new Map(stored.map((row) => [row.id, row]));
    results.forEach((result, i) => {
      const row = byId.get(result.body.id!);
      expect({ number: `INV-${String(row?.number).padStart(6, '0')}`, externalId: row?.external_id }).toEqual({
        number: result.body.number,
        externalId: `order-${i}`,
      });
    });

    // Credits: exactly one charge and one reserve per invoice, and the ledger says the same.
    const billing = (await (
      await fetch(`${urls[1]}/w/${workspaceId}/v1/billing`, { headers: { authorization: `Bearer ${apiKey}` } })
    ).json()) as Record<string, number>;
    expect(billing).toMatchObject({
      creditBalance: GRANT - CREATES,
      reservedCredits: CREATES,
      availableCredits: GRANT - 2 * CREATES,
    });
    const { rows } = await sql<{
      charges: number;
      balance: string;
      reserve: string;
      seq: string;
      events: number;
      lastEvent: string;
    }>`
    SELECT (SELECT count(*)::int FROM credit_ledger WHERE workspace_id = ${workspaceId} AND kind = 'invoice.created') AS charges,
           (SELECT sum(balance_change)::text FROM credit_ledger WHERE workspace_id = ${workspaceId}) AS balance,
           (SELECT sum(reserve_change)::text FROM credit_ledger WHERE workspace_id = ${workspaceId}) AS reserve,
           (SELECT invoice_seq::text FROM workspaces WHERE id = ${workspaceId}) AS seq,
           (SELECT count(*)::int FROM events WHERE workspace_id = ${workspaceId} AND type = 'invoice.created') AS events,
           (SELECT max(id)::text FROM events WHERE workspace_id = ${workspaceId}) AS "lastEvent"`.execute(database.db);
    expect(rows[0]).toEqual({
      charges: CREATES,
      balance: String(GRANT - CREATES),
      reserve: String(CREATES),
      seq: String(CREATES),
      events: CREATES,
      lastEvent: String(CREATES),
    });

    // Retries on the other process replay the same invoices: no new number, no new charge.
    const retries = await Promise.all(Array.from({ length: 20 }, (_, i) => create(i, urls[(i + 1) % 2]!)));
    retries.forEach((retry, i) => {
      expect({ status: retry.status, replayed: retry.replayed, id: retry.body.id, number: retry.body.number }).toEqual({
        status: 201,
        replayed: 'true',
        id: results[i]!.body.id,
        number: results[i]!.body.number,
      });
    });
    const after = (await (
      await fetch(`${urls[0]}/w/${workspaceId}/v1/billing`, { headers: { authorization: `Bearer ${apiKey}` } })
    ).json()) as Record<string, number>;
    expect(after).toMatchObject({ creditBalance: GRANT - CREATES, reservedCredits: CREATES });
    expect(
      await database.db
        .selectFrom('invoices')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirst(),
    ).toEqual({ n: BigInt(CREATES) });
  },
);
