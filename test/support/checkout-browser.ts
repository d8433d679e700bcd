import type { BrowserContext, Page } from 'playwright-core';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll } from 'vitest';
import { JobRunner } from '../../src/jobs/index.js';
import { jobHandlers } from '../../src/main/jobs.js';
import type { ChainDeps } from '../../src/main/services.js';
import { systemClock, type Clock } from '../../src/shared/clock.js';
import type { DemoWallet } from '../../src/web/demo-wallet/demo-wallet.js';
import { BASE_URL, ORIGIN, createKey, createTestApp, newWallet, signIn } from './app.js';
import type { PayingApp } from './paying-app.js';

/**
 * The wall clock moved by a fixed offset: time still flows (the page's countdown runs in real time) but
 * a test can put the server just before an invoice's deadline without waiting an hour.
 */
export class OffsetClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  /** From now on the server reads `date`, and time goes on from there. */
  jumpTo(date: Date): void {
    this.offsetMs = date.getTime() - Date.now();
  }
}

/** Like startPayingApp (real port, settlement worker) but on the given clock, and in the local demo when given its wallet. */
export async function startCheckoutApp(
  chain: ChainDeps,
  options: { clock?: Clock; demoWallet?: DemoWallet } = {},
): Promise<PayingApp> {
  const env = {
    API_RATE_LIMIT_PER_MINUTE: '100000',
    CHECKOUT_RATE_LIMIT_PER_MINUTE: '100000',
    NEW_WORKSPACE_CREDITS: '100000',
  };
  const testApp = await createTestApp(env, options.clock ?? systemClock, chain, options.demoWallet);
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const runner = new JobRunner({
    db: testApp.database.db,
    connection: testApp.database.connection,
    handlers: jobHandlers(testApp.services),
    pollIntervalMs: 200,
  });
  await runner.start();
  afterAll(() => runner.stop());
  const { port } = testApp.app.server.address() as { port: number };
  return { ...testApp, origin: `http://127.0.0.1:${port}` };
}

export const RETURN_ORIGIN = 'https://shop.example';

export interface CheckoutInvoice {
  readonly id: string;
  readonly number: string;
  /** The checkout link on the listening app. */
  readonly link: string;
  /** The same path, for `inject`. */
  readonly path: string;
}

let counter = 0;

/** A merchant workspace (name and description as given) allowed to return buyers to RETURN_ORIGIN. */
export async function checkoutShop(
  paying: PayingApp,
  name = 'Corner Shop',
  description = 'Fresh coffee beans, roasted weekly.',
  wallet: PrivateKeyAccount = newWallet(),
) {
  const cookie = await signIn(paying.app, wallet);
  const created = await paying.app.inject({
    method: 'POST',
    url: '/portal/api/workspaces',
    headers: { cookie, origin: ORIGIN },
    payload: { name, description },
  });
  if (created.statusCode !== 201) throw new Error(`workspace creation failed: ${created.body}`);
  const workspaceId = created.json<{ id: string }>().id;
  const key = await createKey(paying.app, cookie, workspaceId, [
    'invoices:create',
    'invoices:read',
    'payments:read',
    'settings:write',
  ]);
  const headers = { authorization: `Bearer ${key.json<{ secret: string }>().secret}` };
  const settings = await paying.app.inject({
    method: 'PUT',
    url: `/w/${workspaceId}/v1/checkout-settings`,
    headers,
    payload: { origins: [RETURN_ORIGIN] },
  });
  if (settings.statusCode !== 200) throw new Error(`checkout settings failed: ${settings.body}`);
  return {
    wallet,
    workspaceId,
    async invoice(payload: {
      amount: string;
      description?: string;
      successUrl?: string;
      cancelUrl?: string;
    }): Promise<CheckoutInvoice> {
      counter += 1;
      const response = await paying.app.inject({
        method: 'POST',
        url: `/w/${workspaceId}/v1/invoices`,
        headers: { ...headers, 'idempotency-key': `checkout-page-${process.pid}-${counter}` },
        payload,
      });
      if (response.statusCode !== 201) throw new Error(`invoice creation failed: ${response.body}`);
      const invoice = response.json<{ id: string; number: string }>();
      const path = `/w/${workspaceId}/i/${invoice.id}`;
      return { ...invoice, path, link: `${paying.origin}${path}` };
    },
    /** The invoice as the merchant API reports it. */
    async status(invoiceId: string): Promise<string> {
      const response = await paying.app.inject({
        method: 'GET',
        url: `/w/${workspaceId}/v1/invoices/${invoiceId}`,
        headers,
      });
      return response.json<{ status: string }>().status;
    },
  };
}

/**
 * Records every status the page shows (the badge's data-status), from now on, however briefly each
 * lasts: a MutationObserver in the page pushes to an array the test reads.
 */
export async function recordStatuses(page: Page): Promise<() => Promise<string[]>> {
  // A string, not a function: the test project is typed without the DOM library.
  await page.evaluate(`(() => {
    const badge = document.getElementById('status');
    const seen = [badge.dataset.status];
    window.__statuses = seen;
    new MutationObserver(() => {
      if (seen[seen.length - 1] !== badge.dataset.status) seen.push(badge.dataset.status);
    }).observe(badge, { attributes: true, attributeFilter: ['data-status'] });
  })()`);
  return () => page.evaluate('window.__statuses') as Promise<string[]>;
}

/**
 * Makes `context` reach the test app at the service's public URL (PUBLIC_BASE_URL, localhost:3000)
 * although it listens on another port, as a reverse proxy would: pages then run on the service's own
 * origin, which same-origin checks (the demo wallet's) require.
 */
export async function servePublicOrigin(context: BrowserContext, paying: PayingApp): Promise<void> {
  await context.route(`${BASE_URL}/**`, async (route) => {
    const response = await route.fetch({ url: route.request().url().replace(BASE_URL, paying.origin) });
    await route.fulfill({ response });
  });
}

/** Every request the page makes that is not to `origin` (the service): there must be none. */
export function foreignRequests(page: Page, origin: string): string[] {
  const foreign: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) foreign.push(url);
  });
  return foreign;
}
