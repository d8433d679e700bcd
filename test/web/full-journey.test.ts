import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { fundWithUsdc, usdcBalance } from '../../src/chain/local-chain.js';
import { LOCAL_CHAIN_ID, LOCAL_NETWORK_NAME } from '../../src/config/config.js';
import { injectTestWallet, launchBrowser, screenshot } from '../support/browser.js';
import { watchPage } from '../support/portal-browser.js';
import { freePort, startService } from '../support/service-process.js';

// `npm start` as a new user runs it: its own process, the embedded PostgreSQL in a fresh DATA_DIR, the
// local anvil demo chain and the built-in demo wallet. Only the port is chosen by the test.
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const service = await startService({
  PORT: String(port),
  PUBLIC_BASE_URL: origin,
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'invoice-journey-')),
});
afterAll(() => service.stop());
const rpcUrl = /Chain RPC:\s+(\S+)/.exec(service.output())?.[1];
if (!rpcUrl) throw new Error(`no chain RPC in the start banner:\n${service.output()}`);
const browser = await launchBrowser();

const PAID = { timeout: 60_000 } as const;
const tab = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name });

/** The network the portal's invoice detail names. */
const networkFact = (page: Page) =>
  page
    .locator('#invoice-facts dt', { hasText: /^Network$/ })
    .locator('xpath=following-sibling::dd[1]')
    .textContent();

/** Creates an invoice from the portal's form, on no network in particular; resolves its checkout link. */
async function createInvoice(page: Page, amount: string): Promise<string> {
  await tab(page, 'Invoices').click();
  await page.getByLabel('Amount in USDC').fill(amount);
  await page.getByRole('button', { name: 'Create invoice' }).click();
  await page.getByRole('heading', { name: /INV-\d{6}/ }).waitFor();
  expect(await networkFact(page)).toBe('The buyer chooses');
  return (await page.locator('#invoice-checkout-url').textContent())!.trim();
}

/**
 * The portal's invoice detail, left open while the buyer paid, turns to paid by itself, with receipt and
 * timeline, and names the network that paid (the local chain's) where it said the buyer chooses.
 */
async function expectPaidInPortal(page: Page): Promise<void> {
  await page.locator('#invoice-status', { hasText: 'paid' }).waitFor({ timeout: 15_000 });
  expect(await networkFact(page)).toBe(LOCAL_NETWORK_NAME);
  await page.locator('#invoice-receipt').waitFor();
  await page.locator('#invoice-timeline li[data-kind=paid]').waitFor();
  expect(await page.locator('#receipt-facts').textContent()).toMatch(/0x[0-9a-f]{64}/);
}

describe('in the browser, on the service as `npm start` runs it', () => {
  it(
    'a new user signs in with the demo wallet, creates an invoice, pays it on the checkout page and sees it paid',
    { timeout: 120_000 },
    async () => {
      const context = await browser.newContext();
      const portal = await context.newPage();
      const problems = watchPage(portal, origin);
      await portal.goto(`${origin}/portal`);
      await portal.getByRole('button', { name: 'Sign in with Demo wallet: merchant (local chain only)' }).click();
      await portal.getByRole('heading', { name: 'Demo shop' }).waitFor();
      const checkoutUrl = await createInvoice(portal, '2,5');

      const checkout = await context.newPage();
      await checkout.goto(checkoutUrl);
      await checkout.getByRole('button', { name: 'Pay with Demo wallet: buyer (local chain only)' }).click();
      await checkout.locator('#notice-paid').waitFor(PAID);
      expect(await checkout.locator('#status').textContent()).toBe('Paid');

      await expectPaidInPortal(portal);
      await tab(portal, 'Overview').click();
      await screenshot(portal, 'journey-demo-dashboard');
      expect(problems).toEqual([]);
      await context.close();
    },
  );

  it(
    'a merchant with their own wallet creates a key and an invoice; a buyer pays it from another wallet',
    { timeout: 120_000 },
    async () => {
      const merchantContext = await browser.newContext();
      await injectTestWallet(merchantContext, privateKeyToAccount(generatePrivateKey()), rpcUrl, LOCAL_CHAIN_ID);
      const portal = await merchantContext.newPage();
      await portal.goto(`${origin}/portal`);
      await portal.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
      const create = portal.locator('#workspace-create');
      await create.getByLabel('Name').fill('Corner Shop');
      await create.getByRole('button', { name: 'Create workspace' }).click();
      await portal.getByRole('heading', { name: 'Corner Shop' }).waitFor();

      await tab(portal, 'API').click();
      await portal.locator('#keys').getByLabel('Name').fill('shop server');
      await portal.locator('#keys').getByRole('button', { name: 'Create invoices' }).click();
      await portal.locator('#keys').getByRole('button', { name: 'Create key' }).click();
      await portal.getByRole('heading', { name: 'Copy your new API key now' }).waitFor();
      await portal.locator('#keys').getByRole('button', { name: 'I have stored it' }).click();
      const checkoutUrl = await createInvoice(portal, '3.75');

      const buyer = privateKeyToAccount(generatePrivateKey());
      await fundWithUsdc(rpcUrl, buyer.address, 10_000_000n);
      const buyerContext = await browser.newContext();
      const wallet = await injectTestWallet(buyerContext, buyer, rpcUrl, LOCAL_CHAIN_ID);
      const checkout = await buyerContext.newPage();
      await checkout.goto(checkoutUrl);
      await checkout.getByRole('button', { name: 'Pay with Test Wallet' }).click();
      await checkout.locator('#notice-paid').waitFor(PAID);
      expect(wallet.calls).toContain('eth_signTypedData_v4');
      expect(await usdcBalance(rpcUrl, buyer.address)).toBe(6_250_000n);

      await expectPaidInPortal(portal);
      await merchantContext.close();
      await buyerContext.close();
    },
  );
});
