import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/http/app.js';
import { createServices } from '../../src/main/services.js';
import { systemClock } from '../../src/shared/clock.js';
import { BASE_URL, merchant } from '../support/app.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { createTestDatabase } from '../support/database.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

const chain = await createControlledChain({ confirmations: 1, blockTimeSeconds: 1 });
const database = await createTestDatabase();
const env = {
  DATABASE_URL: database.url,
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'automation-crash-')),
  NETWORKS: JSON.stringify([chain.networkConfig]),
  RELAYER_PRIVATE_KEY: chain.relayerPrivateKey,
};
const running: ServiceProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((service) => service.stop()));
});

// The merchant side through the same database, in this process; only the service processes run jobs.
const admin = await buildApp(createServices(loadConfig({ PUBLIC_BASE_URL: BASE_URL }), database.db, systemClock), {
  logger: false,
});
afterAll(() => admin.close());

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const AUTOMATIONS = 12;

it(
  'two worker processes, one killed with -9 as the occurrences fall due: exactly one invoice and one event per occurrence',
  { timeout: 120_000 },
  async () => {
    const shop = await merchant(admin, ['invoices:create', 'invoices:read']);
    const [first, second] = await Promise.all([startService(env), startService(env)]);
    running.push(first!, second!);
    const startAt = new Date(Date.now() + 3000);
    for (let index = 0; index < AUTOMATIONS; index += 1) {
      const response = await admin.inject({
        method: 'POST',
        url: `/w/${shop.workspaceId}/v1/automations`,
        headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': `crash-automation-${index}` },
        payload: {
          name: `Daily ${index}`,
          template: { amount: '1', externalId: `daily-${index}-{n}` },
          schedule: { every: 'day', startAt: startAt.toISOString() },
        },
      });
      expect(response.statusCode).toBe(201);
    }
    const scheduled = async () =>
      Number(
        (
          await database.db
            .selectFrom('invoices')
            .select((eb) => eb.fn.countAll<string>().as('count'))
            .where('workspace_id', '=', shop.workspaceId)
            .where('source', '=', 'automation')
            .executeTakeFirstOrThrow()
        ).count,
      );
    // The first invoices are being committed: kill one worker in the middle of the occurrences.
    await until('the first scheduled invoice', async () => (await scheduled()) > 0);
    await first!.kill9();
    running.splice(running.indexOf(first!), 1);
    // The dead worker's leases lapse after 30 s; let them lapse now rather than wait.
    await sql`UPDATE jobs SET locked_until = now() WHERE locked_until > now()`.execute(database.db);
    await until('every occurrence', async () => (await scheduled()) === AUTOMATIONS);

    const invoices = await database.db
      .selectFrom('invoices')
      .select(['automation_id', 'occurrence', 'external_id', 'number'])
      .where('workspace_id', '=', shop.workspaceId)
      .execute();
    expect(invoices).toHaveLength(AUTOMATIONS);
    expect(new Set(invoices.map((invoice) => invoice.automation_id)).size).toBe(AUTOMATIONS);
    expect(invoices.every((invoice) => invoice.occurrence === 1)).toBe(true);
    // Gapless numbers: 1 … 12, once each.
    expect(invoices.map((invoice) => Number(invoice.number)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: AUTOMATIONS }, (_, index) => index + 1),
    );
    const events = await database.db
      .selectFrom('events')
      .select(['type', 'invoice_id'])
      .where('workspace_id', '=', shop.workspaceId)
      .where('type', '=', 'invoice.scheduled')
      .execute();
    expect(events).toHaveLength(AUTOMATIONS);
    const automations = await database.db
      .selectFrom('automations')
      .select(['occurrences', 'next_occurrence', 'status'])
      .where('workspace_id', '=', shop.workspaceId)
      .execute();
    expect(automations.every((a) => a.occurrences === 1 && a.next_occurrence === 2 && a.status === 'active')).toBe(
      true,
    );
    // Each invoice charged once: 12 × (1 credit + 1 reserved) from the 100 granted.
    const account = await database.db
      .selectFrom('credit_accounts')
      .select(['balance', 'reserved'])
      .where('workspace_id', '=', shop.workspaceId)
      .executeTakeFirstOrThrow();
    expect(account).toEqual({ balance: BigInt(100 - AUTOMATIONS), reserved: BigInt(AUTOMATIONS) });
  },
);
