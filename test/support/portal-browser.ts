import { sql } from 'kysely';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll } from 'vitest';
import { JobRunner } from '../../src/jobs/index.js';
import { jobHandlers } from '../../src/main/jobs.js';
import { NO_CHAIN, type ChainDeps } from '../../src/main/services.js';
import { append } from '../../src/modules/events/index.js';
import { systemClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import type { DemoWallet } from '../../src/web/demo-wallet/demo-wallet.js';
import { freePort } from './free-port.js';
import { createTestApp, newWallet, type TestApp } from './app.js';
import { injectTestWallet } from './browser.js';

export interface PortalApp extends TestApp {
  /** Where the app listens, and its PUBLIC_BASE_URL: the page's origin is the service's own. */
  readonly origin: string;
}

/**
 * The real app on a real port whose PUBLIC_BASE_URL is that very address, so that sign-in (the SIWE
 * domain) and the portal's Origin check see exactly what a browser sends. On the wall clock. With a
 * `chain`, payments are taken on it and the job runner settles and confirms them. Closed after the
 * file's tests. `jobs` runs the job runner without a chain too (automations, webhooks).
 */
export async function startPortalApp(
  options: { env?: Record<string, string>; demoWallet?: DemoWallet; chain?: ChainDeps; jobs?: boolean } = {},
): Promise<PortalApp> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const testApp = await createTestApp(
    { PUBLIC_BASE_URL: origin, ...options.env },
    systemClock,
    options.chain ?? NO_CHAIN,
    options.demoWallet,
  );
  await testApp.app.listen({ port, host: '127.0.0.1' });
  if (options.chain || options.jobs) {
    const runner = new JobRunner({
      db: testApp.database.db,
      connection: testApp.database.connection,
      handlers: jobHandlers(testApp.services),
      pollIntervalMs: 200,
    });
    await runner.start();
    afterAll(() => runner.stop());
  }
  return { ...testApp, origin };
}

/**
 * Everything that should never happen on a portal page, from now on: script errors, console errors
 * (CSP violations are reported there) and requests to anywhere but the service.
 */
export function watchPage(page: Page, origin: string): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // Asking for the session is how the page learns that nobody is signed in yet: that 401 is expected.
    const signedOut = message.location().url === `${origin}/auth/session` && message.text().includes('401');
    if (message.type() === 'error' && !signedOut)
      problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) problems.push(`foreign request: ${url}`);
  });
  return problems;
}

// The wallet signs in only; it sends no transaction, so its RPC address is never used.
const UNUSED_RPC = 'http://127.0.0.1:9';

/**
 * A page of a new wallet signed in to the portal with a fresh workspace ("Corner Shop") it has created,
 * watched for problems from the start.
 */
export async function signedInWithWorkspace(
  browser: Browser,
  portal: TestApp & { origin: string },
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[]; workspaceId: WorkspaceId }> {
  const context = await browser.newContext(options);
  const account = newWallet();
  await injectTestWallet(context, account, UNUSED_RPC, 84532);
  const page = await context.newPage();
  const problems = watchPage(page, portal.origin);
  await page.goto(`${portal.origin}/portal`);
  await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
  const create = page.locator('#workspace-create');
  await create.getByLabel('Name').fill('Corner Shop');
  await create.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByRole('heading', { name: 'Corner Shop' }).waitFor();
  const [workspaceId] = await workspacesOf(portal, account.address);
  return { context, page, problems, workspaceId: workspaceId as WorkspaceId };
}

/** The signed-in wallet's workspaces, newest last, straight from the database. */
export async function workspacesOf(testApp: TestApp, wallet: string): Promise<string[]> {
  const rows = await testApp.database.db
    .selectFrom('workspaces')
    .select('id')
    .where('wallet_address', '=', wallet.toLowerCase())
    .orderBy('created_at')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * A `payment_intent.succeeded` for the invoice through the outbox (the event and its delivery row), its
 * delivery then marked failed as if the retry window had run out: what "retry a failed one" acts on.
 * Resolves the event id.
 */
export async function failedDelivery(
  testApp: TestApp,
  workspaceId: string,
  invoice: { id: string; number: string },
): Promise<string> {
  const db = testApp.database.db;
  const id = await db.transaction().execute((trx) =>
    append(trx, workspaceId as WorkspaceId, {
      type: 'payment_intent.succeeded',
      invoiceId: invoice.id,
      paymentIntentId: 'pi_portaltest',
      data: {
        paymentIntent: { id: 'pi_portaltest', status: 'succeeded' },
        invoice: { id: invoice.id, number: invoice.number, externalId: null },
      },
      at: new Date(),
    }),
  );
  await sql`UPDATE webhook_deliveries SET status = 'failed', attempts = 9, last_attempt_at = now(), last_status_code = 503, last_error = 'http_status', next_attempt_at = NULL
             WHERE workspace_id = ${workspaceId} AND event_id = ${id.toString()}`.execute(db);
  return id.toString();
}

/**
 * Paid invoices on earlier days, so that the dashboard's chart has something to draw in its
 * screenshot: created through the service, then marked paid in the database (paying for real is the
 * checkout tests' business).
 */
export async function seedPaidInvoices(
  testApp: TestApp,
  workspaceId: string,
  payments: readonly { amount: string; daysAgo: number }[],
): Promise<void> {
  for (const [i, payment] of payments.entries()) {
    const { invoice } = await testApp.services.invoices.create(
      workspaceId as WorkspaceId,
      { amount: payment.amount },
      { idempotencyKey: `seed-paid-${i}-${Date.now()}`, source: 'api' },
    );
    const paidAt = new Date(Date.now() - payment.daysAgo * 86400_000);
    await sql`UPDATE invoices SET status = 'paid', paid_at = ${paidAt}, fee_reserved = 0 WHERE workspace_id = ${workspaceId} AND id = ${invoice.id}`.execute(
      testApp.database.db,
    );
  }
}
