import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { injectTestWallet, launchBrowser, screenshot } from '../support/browser.js';
import { newWallet } from '../support/app.js';
import { auditPage } from '../support/axe.js';
import {
  failedDelivery,
  seedPaidInvoices,
  startPortalApp,
  watchPage,
  workspacesOf,
} from '../support/portal-browser.js';
import { startTestReceiver } from '../support/webhook-receiver.js';

// The wallet signs in only; it sends no transaction, so its RPC address is never used.
const UNUSED_RPC = 'http://127.0.0.1:9';
const portal = await startPortalApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
const receiver = await startTestReceiver();
const browser = await launchBrowser();

const text = async (page: Page, selector: string) => (await page.locator(selector).textContent())?.trim();
const tab = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name });

it('a merchant signs in with a wallet and runs a workspace from the portal', { timeout: 90_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const account = newWallet();
  const wallet = await injectTestWallet(context, account, UNUSED_RPC, 84532);
  const page = await context.newPage();
  // Accept the confirmation dialogs (cancel, rotate) as the person would.
  page.on('dialog', (dialog) => void dialog.accept());
  const problems = watchPage(page, portal.origin);

  // Sign in (SIWE) with the wallet the page found, then create the first workspace.
  await page.goto(`${portal.origin}/portal`);
  await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
  await page.getByRole('heading', { name: 'Create a workspace' }).waitFor();
  expect(wallet.calls).toContain('personal_sign');
  const create = page.locator('#workspace-create');
  await create.getByLabel('Name').fill('Corner Shop');
  await create.getByLabel(/^Description/).fill('Fresh coffee beans, roasted weekly.');
  await create.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByRole('heading', { name: 'Corner Shop' }).waitFor();
  const [workspaceId] = await workspacesOf(portal, account.address);
  expect(await text(page, '#workspace-id')).toBe(workspaceId);

  // An API key: the secret is shown once, works, and is gone from the page once dismissed.
  await tab(page, 'API').click();
  const keys = page.locator('#keys');
  await keys.getByLabel('Name').fill('production server');
  await keys.getByRole('button', { name: 'Read invoices' }).click();
  await keys.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('heading', { name: 'Copy your new API key now' }).waitFor();
  const secret = (await text(page, '#key-secret-value'))!;
  expect(secret).toMatch(/^isk_/);
  const withKey = await portal.app.inject({
    method: 'GET',
    url: `/w/${workspaceId}/v1/invoice-search?q=INV-1`,
    headers: { authorization: `Bearer ${secret}` },
  });
  expect(withKey.statusCode).toBe(200);
  await page.locator('#keys-body').getByText('production server').waitFor();
  await keys.getByRole('button', { name: 'I have stored it' }).click();
  await page.locator('#key-secret-box').waitFor({ state: 'hidden' });
  expect(await page.content()).not.toContain(secret);

  // An invoice with a comma amount: its detail opens, with the created record in its timeline.
  await tab(page, 'Invoices').click();
  await page.getByLabel('Amount in USDC').fill('12,5');
  await page.getByLabel(/^Order reference/).fill('order-1001');
  await page
    .locator('#invoice-create')
    .getByLabel(/^Description/)
    .fill('Coffee beans, 250 g\nGround for filter');
  await page.getByRole('button', { name: 'Create invoice' }).click();
  await page.getByRole('heading', { name: /INV-000001/ }).waitFor();
  // The form sent its own Idempotency-Key, so a retry after a lost answer cannot create a second invoice.
  const sentKeys = await portal.database.db
    .selectFrom('idempotency_keys')
    .select('key')
    .where('workspace_id', '=', workspaceId!)
    .execute();
  expect(sentKeys.map((row) => row.key)).toEqual([expect.stringMatching(/^portal-[0-9a-f]{32}$/)]);
  expect(await text(page, '#invoice-status')).toBe('open');
  await page.locator('#invoice-facts').getByText('12.50 USDC').waitFor();
  // The description as the buyer will read it on the checkout page, its line break kept.
  expect(await page.locator('#invoice-facts .text').innerText()).toBe('Coffee beans, 250 g\nGround for filter');
  await page.locator('#invoice-timeline li[data-kind=created]').getByText('Created').waitFor();
  const checkoutUrl = (await text(page, '#invoice-checkout-url'))!;
  expect(checkoutUrl).toMatch(new RegExp(`^${portal.origin}/w/${workspaceId}/i/inv_`));

  // The list shows it, the status filters and the search find it.
  await page.getByRole('link', { name: '← All invoices' }).click();
  const rows = page.locator('#invoice-rows');
  await rows.getByRole('link', { name: 'INV-000001' }).waitFor();
  expect(await rows.textContent()).toContain('12.50 USDC');
  await page.locator('#invoice-filters').getByText('paid', { exact: true }).click();
  await page.getByText('No paid invoices.').waitFor();
  await page.locator('#invoice-filters').getByText('open', { exact: true }).click();
  await rows.getByRole('link', { name: 'INV-000001' }).waitFor();
  // The open invoices as a CSV download, counted as it streams in.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`invoices-${workspaceId}-open.csv`);
  const csv = readFileSync((await download.path())!, 'utf8').split('\r\n');
  expect(csv[0]).toMatch(/^number,id,status,amount,/);
  expect(csv[1]).toMatch(/^INV-000001,inv_\w+,open,12\.500000,USDC,/);
  await page.getByText(`Exported 1 invoice to invoices-${workspaceId}-open.csv.`).waitFor();
  await page.getByLabel('Find an invoice').fill('order-1001');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('button', { name: 'Show all' }).waitFor();
  await rows.getByRole('link', { name: 'INV-000001' }).click();

  // Cancel it from its detail: the status and the timeline follow.
  await page.getByRole('button', { name: 'Cancel the invoice' }).click();
  await page.locator('#invoice-timeline li[data-kind=cancelled]').waitFor();
  expect(await text(page, '#invoice-status')).toBe('cancelled');
  await page.getByRole('button', { name: 'Cancel the invoice' }).waitFor({ state: 'hidden' });
  await screenshot(page, 'portal-invoice');

  // A checkout return origin, saved in the server's spelling.
  await tab(page, 'Settings').click();
  await page.getByLabel('Allowed origins, one per line').fill('https://Shop.example.com');
  await page.getByRole('button', { name: 'Save origins' }).click();
  await page.getByText('Return origins saved.').waitFor();
  expect(await page.getByLabel('Allowed origins, one per line').inputValue()).toBe('https://shop.example.com');

  // The webhook: endpoint (secret shown once), a test event in the recent deliveries.
  await tab(page, 'API').click();
  await page.getByLabel('Endpoint URL').fill(receiver.url);
  await page.getByRole('button', { name: 'Save endpoint' }).click();
  await page.getByRole('heading', { name: 'Copy your signing secret now' }).waitFor();
  expect(await text(page, '#webhook-secret-value')).toMatch(/^whsec_/);
  await page.locator('#webhook-secret-box').getByRole('button', { name: 'I have stored it' }).click();
  await page.getByRole('button', { name: 'Send a test event' }).click();
  await page.getByText(/Test event test_\w+ acknowledged \(200\)/).waitFor();
  expect(receiver.received).toHaveLength(1);
  const deliveries = page.locator('#deliveries-body');
  await deliveries.getByText(receiver.received[0]!.eventId).waitFor();
  expect(await deliveries.textContent()).toContain('succeeded');

  // A delivery that failed for good gets a retry button; retrying makes it pending again.
  const eventId = await failedDelivery(portal, workspaceId!, {
    id: checkoutUrl.split('/').at(-1)!,
    number: 'INV-000001',
  });
  await page.getByRole('button', { name: 'Refresh' }).click();
  const failedRow = deliveries.locator('tr', { hasText: 'payment_intent.succeeded' });
  await failedRow.getByText('HTTP 503').waitFor();
  await failedRow.getByRole('button', { name: 'Retry now' }).click();
  await page.getByText(`Event ${eventId} will be sent again in a moment.`).waitFor();
  await failedRow.getByText('pending').waitFor();

  // Rotation shows the new secret once and pauses delivery: the health issue is at the top until resumed.
  await page.getByRole('button', { name: 'Rotate the secret' }).click();
  await page.getByRole('heading', { name: 'Copy your signing secret now' }).waitFor();
  const issues = page.getByRole('region', { name: 'Needs your attention' });
  await issues.locator('strong', { hasText: 'Webhook delivery is paused' }).waitFor();
  await page.getByRole('button', { name: 'Resume delivery' }).click();
  await issues.locator('strong', { hasText: 'Webhook delivery is paused' }).waitFor({ state: 'detached' });
  // What is left: the delivery retried by hand waits for a worker (none runs here).
  await issues.locator('strong', { hasText: 'Webhook deliveries are being retried (1)' }).waitFor();

  // The credits: 100 granted, 1 spent on the invoice, its reserve released by the cancellation.
  await tab(page, 'Overview').click();
  await page.locator('#billing-balance').getByText('99').waitFor();
  expect([await text(page, '#billing-available'), await text(page, '#billing-reserved')]).toEqual(['99', '0']);
  expect(await text(page, '#billing-tariff')).toBe('1 credit for 1 hour, 2 credits for 1 day, 3 credits for 5 days');
  await page.getByText(/Webhooks: 1 of 1 attempt acknowledged \(100%\)/).waitFor();

  // The dashboard as a reviewer sees it, with payments on earlier days for the chart to draw.
  await seedPaidInvoices(portal, workspaceId!, [
    { amount: '25', daysAgo: 12 },
    { amount: '40.5', daysAgo: 6 },
    { amount: '18', daysAgo: 2 },
    { amount: '61.25', daysAgo: 1 },
  ]);
  await page.reload();
  await page.getByText(/144\.75 USDC paid in 4 invoices/).waitFor();
  expect(await page.locator('#activity svg[role=img]').count()).toBe(2);
  // Drawn charts and a health banner pass the same checks as every other state.
  await page.locator('#issues').waitFor();
  expect(await auditPage(page, 'portal-dashboard')).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await auditPage(page, 'portal-dashboard-phone')).toEqual([]);

  expect(problems).toEqual([]);
  await context.close();
});
