import { expect, it } from 'vitest';
import { merchant } from '../support/app.js';
import { serviceFleet, until } from '../support/service-fleet.js';

const { database, admin, start, kill9 } = await serviceFleet({ confirmations: 1 });

const AUTOMATIONS = 12;

it(
  'two worker processes, one killed with -9 as the occurrences fall due: exactly one invoice and one event per occurrence',
  { timeout: 120_000 },
  async () => {
    const shop = await merchant(admin, ['invoices:create', 'invoices:read']);
    const [first] = await Promise.all([start(), start()]);
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
    await kill9(first!);
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
