import { afterAll } from 'vitest';
import { JobRunner } from '../../src/jobs/index.js';
import { jobHandlers } from '../../src/main/jobs.js';
import { append } from '../../src/modules/events/index.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { merchant, type TestApp } from './app.js';

/** The worker of a test app, running every job kind; stopped after the file's tests. */
export async function startWorker(testApp: TestApp): Promise<JobRunner> {
  const runner = new JobRunner({
    db: testApp.database.db,
    connection: testApp.database.connection,
    handlers: jobHandlers(testApp.services),
    pollIntervalMs: 200,
  });
  await runner.start();
  afterAll(() => runner.stop());
  return runner;
}

let invoiceCounter = 0;

/** A workspace with a key that may configure webhooks, create invoices and read payments. */
export async function webhookShop(testApp: TestApp) {
  const shop = await merchant(testApp.app, [
    'webhooks:read',
    'webhooks:write',
    'invoices:create',
    'invoices:read',
    'payments:read',
    'billing:read',
  ]);
  const headers = { authorization: `Bearer ${shop.apiKey}` };
  const base = `/w/${shop.workspaceId}/v1`;
  const api = async (method: 'GET' | 'PUT' | 'POST', path: string, payload?: object) => {
    const response = await testApp.app.inject({
      method,
      url: `${base}${path}`,
      headers,
      ...(payload ? { payload } : {}),
    });
    return { status: response.statusCode, body: response.json(), headers: response.headers };
  };
  return {
    ...shop,
    api,
    /** Sets the endpoint; resolves the signing secret. */
    async configure(endpoint: string): Promise<string> {
      const { status, body } = await api('PUT', '/webhook', { endpoint, enabled: true });
      if (status !== 200) throw new Error(`webhook configuration failed: ${JSON.stringify(body)}`);
      return (body as { secret: string }).secret;
    },
    /**
     * Records a `payment_intent.succeeded` for a new invoice through the outbox, as the payment service
     * does when a payment confirms (tests of the chain path pay for real). Resolves the event id.
     */
    async emitPaymentEvent(): Promise<string> {
      invoiceCounter += 1;
      const created = await testApp.app.inject({
        method: 'POST',
        url: `${base}/invoices`,
        headers: { ...headers, 'idempotency-key': `webhook-test-${invoiceCounter}` },
        payload: { amount: '5' },
      });
      const invoice = created.json<{ id: string; number: string }>();
      const id = await testApp.database.db.transaction().execute((trx) =>
        append(trx, shop.workspaceId as WorkspaceId, {
          type: 'payment_intent.succeeded',
          invoiceId: invoice.id,
          paymentIntentId: `pi_test${invoiceCounter}`,
          data: {
            paymentIntent: { id: `pi_test${invoiceCounter}`, status: 'succeeded', amount: '5.000000' },
            invoice: { id: invoice.id, number: invoice.number, externalId: null },
          },
          at: new Date(),
        }),
      );
      return id.toString();
    },
  };
}
