import { afterAll } from 'vitest';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { InvoiceId } from '../../src/modules/invoices/invoice.js';
import { invoiceOrder } from '../../src/modules/payment-engine/order.js';
import { decodePaymentHeader } from '../../src/modules/x402/x402.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { usdcBalance } from '../../src/chain/local-chain.js';
import { createWorkers } from '../../src/main/jobs.js';
import type { ChainDeps } from '../../src/main/services.js';
import { systemClock } from '../../src/shared/clock.js';
import type { JobLogger } from '../../src/jobs/index.js';
import { BASE_URL, createTestApp, merchant, type TestApp } from './app.js';
import { signPaymentHeader } from './x402.js';

export interface PayingApp extends TestApp {
  /** Where the app listens, e.g. http://127.0.0.1:41234. */
  readonly origin: string;
}

/**
 * The real app on a real port with the settlement worker running (unless `worker: false`: the test plays
 * the worker), on the wall clock (the x402 clients sign with the wall clock). Stopped after the file's tests.
 * With `orderChanges`, the listener that lets 402 challenges answer from copies runs too; without it
 * every challenge reads the database, so a test may change an order and ask at once. `logger` hears the
 * job runners' warnings and errors (silent by default).
 */
export async function startPayingApp(
  chain: ChainDeps,
  options: { worker?: boolean; env?: Record<string, string>; orderChanges?: boolean; logger?: JobLogger } = {},
): Promise<PayingApp> {
  const testApp = await createTestApp(
    {
      API_RATE_LIMIT_PER_MINUTE: '100000',
      CHECKOUT_RATE_LIMIT_PER_MINUTE: '100000',
      NEW_WORKSPACE_CREDITS: '100000',
      ...options.env,
    },
    systemClock,
    chain,
  );
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  if (options.worker ?? true) {
    // The workers of a service process: its job runners and the watcher that wakes payments on new blocks.
    const workers = createWorkers(testApp.services, testApp.database.connection, options.logger);
    await workers.start();
    afterAll(() => workers.stop());
  }
  if (options.orderChanges) {
    // As `npm start` does in processes that serve HTTP: 402 challenges answer from copies of order states.
    const listener = testApp.services.payments.orderChanges.listen(testApp.database.connection, { warn() {} });
    await listener.start();
    afterAll(() => listener.stop());
  }
  const { port } = testApp.app.server.address() as { port: number };
  return { ...testApp, origin: `http://127.0.0.1:${port}` };
}

export interface InvoiceView {
  readonly id: string;
  readonly number: string;
  readonly status: string;
  readonly amount: string;
  readonly url: string;
  readonly payTo: string;
  readonly linkVersion: number;
}

let invoiceCounter = 0;

/** A merchant workspace with a key, and shortcuts to its invoices. */
export async function openShop(paying: PayingApp) {
  const shop = await merchant(paying.app, ['invoices:create', 'invoices:read', 'payments:read', 'billing:read']);
  const headers = { authorization: `Bearer ${shop.apiKey}` };
  const api = (method: 'GET' | 'POST', path: string, payload?: object) =>
    paying.app.inject({ method, url: `/w/${shop.workspaceId}/v1${path}`, headers, ...(payload ? { payload } : {}) });
  return {
    ...shop,
    api,
    /** A new invoice and the URL of its x402 resource on the listening app. */
    async invoice(amount: string, fields: { description?: string } = {}): Promise<InvoiceView & { payUrl: string }> {
      invoiceCounter += 1;
      const response = await paying.app.inject({
        method: 'POST',
        url: `/w/${shop.workspaceId}/v1/invoices`,
        headers: { ...headers, 'idempotency-key': `pay-test-${process.pid}-${invoiceCounter}` },
        payload: { amount, ...fields },
      });
      if (response.statusCode !== 201) throw new Error(`invoice creation failed: ${response.body}`);
      const invoice = response.json<InvoiceView>();
      return { ...invoice, payUrl: invoice.url.replace(BASE_URL, paying.origin) };
    },
  };
}

export type Shop = Awaited<ReturnType<typeof openShop>>;

/** What a payment may have changed: balances, the invoice, its payment intents. */
export async function paymentState(
  paying: PayingApp,
  rpcUrl: string,
  invoiceId: string,
  addresses: readonly `0x${string}`[],
) {
  const db = paying.database.db;
  const [invoice, intents, balances] = await Promise.all([
    db
      .selectFrom('invoices')
      .select(['status', 'paid_at', 'link_version'])
      .where('id', '=', invoiceId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('payment_intents')
      .select(['id', 'status', 'failure_reason', 'payer', 'tx_hash'])
      .where('invoice_id', '=', invoiceId)
      .orderBy('created_at')
      .execute(),
    Promise.all(addresses.map((address) => usdcBalance(rpcUrl, address))),
  ]);
  return { status: invoice.status, intents, balances };
}

/**
 * x402 payments of new invoices of `amounts`, each signed by a new payer with the unmodified v2 client
 * and handed to the payment engine as the endpoint does, not settled yet: the test runs the settlements.
 */
export async function submittedX402Payments(
  paying: PayingApp,
  shop: Shop,
  newPayer: () => Promise<PrivateKeyAccount>,
  amounts: readonly string[],
) {
  const payments = [];
  for (const amount of amounts) {
    const invoice = await shop.invoice(amount);
    const submission = decodePaymentHeader(await signPaymentHeader(await newPayer(), invoice.payUrl), 2);
    if (typeof submission === 'string') throw new Error(submission);
    const intent = await paying.services.payments.submitAuthorization(
      shop.workspaceId as WorkspaceId,
      invoiceOrder(invoice.id as InvoiceId),
      submission,
    );
    payments.push({ invoice, intent });
  }
  return payments;
}
