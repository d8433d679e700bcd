import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, expect, it } from 'vitest';
import { fundWithUsdc, setEthBalance, usdcBalance } from '../../src/chain/local-chain.js';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { buildApp } from '../../src/main/app.js';
import { createServices } from '../../src/main/services.js';
import { systemClock } from '../../src/shared/clock.js';
import { BASE_URL, merchant } from '../support/app.js';
import type { ChaosLoadResult, ChaosLoadSettings } from '../support/chaos-load.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { databaseUrl } from '../support/database.js';
import { startPgBouncer } from '../support/pgbouncer.js';
import { until } from '../support/service-fleet.js';
import { freePort, startService, type ServiceProcess } from '../support/service-process.js';
import { startTestReceiver } from '../support/webhook-receiver.js';

/**
 * The scaled-out layout under faults: one PostgreSQL server of its own, a pgbouncer in transaction mode in
 * front of it, two api and two worker processes (one of each through the pooler, the pooled worker
 * listening on a direct connection), a load generator in a process of its own, a webhook receiver that
 * fails a share of requests, and a kill -9 of a random service process every few seconds, restarted at
 * once. Then nothing may be lost or done twice.
 */
const KILLS = 20;
const LOOPS = 3;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const scratch = mkdtempSync(path.join(os.tmpdir(), 'chaos-'));
// The database server runs as an unprivileged user when this runs as root: it must enter the directory.
chmodSync(scratch, 0o755);
const server = await startEmbeddedPostgres({
  dataDir: path.join(scratch, 'db'),
  database: 'invoice',
  // The server itself is never killed here: durability on disk buys nothing in this test.
  settings: { fsync: 'off', synchronous_commit: 'off', max_connections: '300' },
});
const direct = {
  host: String(server.connection.host),
  port: Number(server.connection.port),
  user: String(server.connection.user),
};
const directUrl = databaseUrl(direct, 'invoice');
const pooler = await startPgBouncer(direct, 'invoice');
const chain = await createControlledChain({ confirmations: 1, blockTimeSeconds: 1 });
/** Workspace and event id of a webhook request, from its body (event ids are per workspace). */
const eventOf = (body: string) => {
  const event = JSON.parse(body) as { id: string; workspaceId: string };
  return `${event.workspaceId}/${event.id}`;
};
// A quarter of the requests fail; the acknowledged ones are counted, to tell duplicates from retries.
const acknowledged: string[] = [];
const receiver = await startTestReceiver((request) => {
  if (Math.random() < 0.25) return { status: 500 };
  acknowledged.push(eventOf(request.body));
  return { status: 200 };
});
afterAll(async () => {
  await pooler.stop();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const apiPorts = [await freePort(), await freePort()];
const publicBaseUrl = `http://localhost:${apiPorts[0]}`;
const shared = {
  PUBLIC_BASE_URL: publicBaseUrl,
  DATA_DIR: path.join(scratch, 'data'),
  NETWORKS: JSON.stringify([chain.networkConfig]),
  RELAYER_PRIVATE_KEY: chain.relayerPrivateKey,
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1,2',
  API_RATE_LIMIT_PER_MINUTE: '1000000',
  CHECKOUT_RATE_LIMIT_PER_MINUTE: '1000000',
  LOG_LEVEL: 'error',
};
/** Each service process as it is restarted after a kill: the same role, database path and port. */
const layout: { name: string; env: Record<string, string> }[] = [
  { name: 'api (direct)', env: { ROLE: 'api', DATABASE_URL: directUrl, PORT: String(apiPorts[0]) } },
  // No DATABASE_DIRECT_URL: its migrations run through the pooler.
  { name: 'api (pgbouncer)', env: { ROLE: 'api', DATABASE_URL: pooler.url, PORT: String(apiPorts[1]) } },
  { name: 'worker (direct)', env: { ROLE: 'worker', DATABASE_URL: directUrl } },
  {
    name: 'worker (pgbouncer)',
    env: { ROLE: 'worker', DATABASE_URL: pooler.url, DATABASE_DIRECT_URL: directUrl },
  },
];
const services: ServiceProcess[] = [];

/** Map.groupBy, which Node 20 lacks. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
});

it(
  'two api and two worker processes, one of each through pgbouncer, lose nothing and do nothing twice through 20 kill -9s under load',
  { timeout: 600_000 },
  async () => {
    // All four start at once on an empty database: the migrations race, through the pooler too.
    services.push(...(await Promise.all(layout.map(({ env }) => startService({ ...shared, ...env })))));

    const { db, close } = openDatabase({ connectionString: directUrl });
    afterAll(close);
    const admin = await buildApp(
      createServices(
        loadConfig({ PUBLIC_BASE_URL: BASE_URL, NEW_WORKSPACE_CREDITS: '100000', WEBHOOK_ALLOW_PRIVATE: 'true' }),
        db,
        systemClock,
      ),
      { logger: false },
    );
    afterAll(() => admin.close());
    const shops = await Promise.all(
      [1, 2, 3].map(() =>
        merchant(admin, ['invoices:create', 'invoices:read', 'payments:read', 'webhooks:read', 'webhooks:write']),
      ),
    );
    for (const shop of shops) {
      const configured = await admin.inject({
        method: 'PUT',
        url: `/w/${shop.workspaceId}/v1/webhook`,
        headers: { authorization: `Bearer ${shop.apiKey}` },
        payload: { endpoint: receiver.url, enabled: true },
      });
      expect(configured.statusCode).toBe(200);
    }

    const buyers = [];
    for (let i = 0; i < LOOPS; i++) {
      const x402 = generatePrivateKey();
      const transfer = generatePrivateKey();
      await fundWithUsdc(chain.rpcUrl, privateKeyToAccount(x402).address, 100_000_000_000n);
      await fundWithUsdc(chain.rpcUrl, privateKeyToAccount(transfer).address, 100_000_000_000n);
      await setEthBalance(chain.rpcUrl, privateKeyToAccount(transfer).address, 10n ** 20n);
      buyers.push({ x402, transfer });
    }
    const resultFile = path.join(scratch, 'load.json');
    const settings: ChaosLoadSettings = {
      apiUrls: apiPorts.map((port) => `http://localhost:${port}`),
      workspaces: shops.map((shop) => ({ id: shop.workspaceId, apiKey: shop.apiKey, wallet: shop.wallet.address })),
      rpcUrl: chain.rpcUrl,
      usdc: chain.network.usdc,
      network: chain.network.name,
      buyers,
      resultFile,
    };
    const load = spawn(process.execPath, ['--import', 'tsx', 'test/support/chaos-load.ts'], {
      cwd: ROOT,
      env: { ...process.env, CHAOS_LOAD: JSON.stringify(settings) },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const loadExited = new Promise<number | null>((resolve) => load.once('exit', resolve));
    afterAll(() => void load.kill('SIGKILL'));

    // A kill -9 of a random service process every few seconds, restarted at once.
    const killed: string[] = [];
    const started = Date.now();
    while (killed.length < KILLS) {
      await new Promise((resolve) => setTimeout(resolve, 1_500 + Math.random() * 2_500));
      const victim = Math.floor(Math.random() * layout.length);
      await services[victim]!.kill9();
      killed.push(layout[victim]!.name);
      services[victim] = await startService({ ...shared, ...layout[victim]!.env });
    }
    const chaosSeconds = Math.round((Date.now() - started) / 1000);
    load.kill('SIGTERM');
    expect(await loadExited).toBe(0);
    const result = JSON.parse(readFileSync(resultFile, 'utf8')) as ChaosLoadResult;
    expect(result.errors).toEqual([]);

    // Leases of killed workers run out (30 s) and their jobs run again; failed webhook attempts are retried.
    await until(
      'payments to settle and payment webhooks to be delivered',
      async () => {
        const { rows } = await sql<{ busy: number }>`
          SELECT (SELECT count(*) FROM payment_intents WHERE status = 'processing')
               + (SELECT count(*) FROM invoices WHERE status = 'processing')
               + (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS busy
        `.execute(db);
        return Number(rows[0]!.busy) === 0;
      },
      180_000,
    );

    // Every acknowledged create exists exactly once, with what was sent; none was left unacknowledged.
    const creates = result.creates;
    expect(creates.filter((record) => !record.invoiceId)).toEqual([]);
    expect(creates.length).toBeGreaterThan(50);
    const invoices = await db
      .selectFrom('invoices')
      .select(['workspace_id', 'id', 'number', 'status', 'amount', 'external_id'])
      .execute();
    const byExternalId = groupBy(invoices, (invoice) => `${invoice.workspace_id}/${invoice.external_id}`);
    for (const record of creates) {
      const found = byExternalId.get(`${record.workspaceId}/${record.externalId}`) ?? [];
      expect(found.map((invoice) => invoice.id)).toEqual([record.invoiceId]);
    }
    expect(invoices).toHaveLength(creates.length);

    // Numbering is gapless per workspace.
    for (const shop of shops) {
      const numbers = invoices
        .filter((invoice) => invoice.workspace_id === shop.workspaceId)
        .map((invoice) => Number(invoice.number))
        .sort((a, b) => a - b);
      expect(numbers).toEqual(numbers.map((_, index) => index + 1));
    }

    // Every paid invoice is paid once, with one settlement transaction; nothing is left half-done.
    const intents = await db
      .selectFrom('payment_intents')
      .select(['workspace_id', 'invoice_id', 'method', 'status', 'amount', 'tx_hash', 'overpayment', 'failure_reason'])
      .execute();
    const succeeded = intents.filter((intent) => intent.status === 'succeeded');
    const paid = invoices.filter((invoice) => invoice.status === 'paid');
    expect(invoices.filter((invoice) => invoice.status === 'processing')).toEqual([]);
    expect(succeeded.filter((intent) => intent.overpayment)).toEqual([]);
    expect(new Set(succeeded.map((intent) => intent.invoice_id)).size).toBe(succeeded.length);
    expect(succeeded.map((intent) => intent.invoice_id).sort()).toEqual(paid.map((invoice) => invoice.id).sort());
    for (const intent of succeeded) {
      const invoice = paid.find((candidate) => candidate.id === intent.invoice_id)!;
      expect(intent.amount).toBe(invoice.amount);
    }
    const settlements = succeeded.filter((intent) => intent.method === 'authorization');
    expect(new Set(settlements.map((intent) => intent.tx_hash)).size).toBe(settlements.length);
    // The relayer sent exactly one mined transaction per settled payment: none twice, none reverted.
    expect(await chain.transactionCount(chain.relayer)).toBe(settlements.length);
    // And each shop holds exactly what its paid invoices ask.
    for (const shop of shops) {
      const expected = paid
        .filter((invoice) => invoice.workspace_id === shop.workspaceId)
        .reduce((sum, invoice) => sum + invoice.amount, 0n);
      expect(await usdcBalance(chain.rpcUrl, shop.wallet.address)).toBe(expected);
    }
    // Payments the buyer saw succeed are paid; transfers the service accepted end paid too.
    const paidIds = new Set(paid.map((invoice) => invoice.id));
    const x402 = result.payments.filter((payment) => payment.method === 'x402');
    const transfers = result.payments.filter((payment) => payment.method === 'transfer');
    for (const payment of x402.filter((record) => record.outcomes.includes(200)))
      expect(paidIds.has(payment.invoiceId)).toBe(true);
    for (const payment of transfers.filter((record) => record.outcomes.includes(202)))
      expect(paidIds.has(payment.invoiceId)).toBe(true);

    // Every payment_intent.succeeded reached the receiver at least once; duplicates carry the same id and body.
    const events = await db
      .selectFrom('events')
      .select(['workspace_id', 'id', 'payment_intent_id'])
      .where('type', '=', 'payment_intent.succeeded')
      .execute();
    expect(events).toHaveLength(succeeded.length);
    const received = groupBy(receiver.received, (request) => {
      expect(request.eventId).toBe((JSON.parse(request.body) as { id: string }).id);
      return eventOf(request.body);
    });
    for (const event of events) {
      const copies = received.get(`${event.workspace_id}/${event.id}`) ?? [];
      expect(copies.length, `event ${event.workspace_id}/${event.id}`).toBeGreaterThan(0);
      expect(new Set(copies.map((copy) => copy.body)).size).toBe(1);
    }
    // Sent again after the receiver had acknowledged it (a worker killed before it recorded the answer).
    const duplicates = acknowledged.length - new Set(acknowledged).size;

    // The ledger equals the balance.
    const { rows: ledger } = await sql<{
      workspace_id: string;
      balance: string;
      reserved: string;
      sum_balance: string;
      sum_reserve: string;
    }>`
      SELECT a.workspace_id, a.balance, a.reserved,
             COALESCE(sum(l.balance_change), 0) AS sum_balance, COALESCE(sum(l.reserve_change), 0) AS sum_reserve
        FROM credit_accounts a LEFT JOIN credit_ledger l USING (workspace_id)
       GROUP BY a.workspace_id, a.balance, a.reserved
    `.execute(db);
    for (const row of ledger) {
      expect(String(row.sum_balance)).toBe(String(row.balance));
      expect(String(row.sum_reserve)).toBe(String(row.reserved));
    }

    console.log(
      JSON.stringify({
        chaosSeconds,
        kills: killed.length,
        killed: Object.fromEntries([...groupBy(killed, (name) => name)].map(([name, list]) => [name, list.length])),
        requests: result.requests,
        networkErrors: result.networkErrors,
        statuses: result.statuses,
        creates: creates.length,
        createRetries: creates.reduce((sum, record) => sum + record.attempts - 1, 0),
        paid: paid.length,
        x402: x402.length,
        transfers: transfers.length,
        failedIntents: intents.filter((intent) => intent.status === 'failed').map((intent) => intent.failure_reason),
        webhookRequests: receiver.received.length,
        paymentEvents: events.length,
        webhookDuplicatesAfterAcknowledgement: duplicates,
      }),
    );
  },
);
