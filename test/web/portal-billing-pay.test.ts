import type { Page } from 'playwright-core';
import { getAddress, type Address } from 'viem';
import { describe, expect, it } from 'vitest';
import { usdcBalance } from '../../src/chain/local-chain.js';
import { injectTestWallet, launchBrowser, screenshot } from '../support/browser.js';
import { TEST_OPERATOR_WALLET, newWallet } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import { fundGas, transfer } from '../support/checkout.js';
import { startPortalApp, watchPage, workspacesOf } from '../support/portal-browser.js';

// Two credits: the first invoice (1 credit, 1 more reserved for its success fee) takes them all.
const chain = await createTestChain();
const portal = await startPortalApp({ chain, env: { NEW_WORKSPACE_CREDITS: '2' } });
const browser = await launchBrowser();
const OPERATOR = getAddress(TEST_OPERATOR_WALLET);
/** The default `starter` package. */
const STARTER = { credits: 100, price: 10_000_000n };
const SETTLED = { timeout: 30_000 };
const NO_CREDITS = 'This workspace does not have enough credits for that. Buy more under Billing.';

const tab = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name });
const text = async (page: Page, selector: string) => (await page.locator(selector).textContent())?.trim();

/** Signs in with the page's test wallet (`owner`) and creates its first workspace; resolves the workspace id. */
async function signInWithWorkspace(page: Page, owner: Address, name: string): Promise<string> {
  await page.goto(`${portal.origin}/portal`);
  await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
  const create = page.locator('#workspace-create');
  await create.getByLabel('Name').fill(name);
  await create.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByRole('heading', { name }).waitFor();
  const [workspaceId] = await workspacesOf(portal, owner);
  return workspaceId!;
}

/** Submits the portal's invoice form; the form stays on the invoices tab when the service refuses. */
async function submitInvoice(page: Page, amount: string): Promise<void> {
  await tab(page, 'Invoices').click();
  await page.getByLabel('Amount in USDC').fill(amount);
  await page.getByRole('button', { name: 'Create invoice' }).click();
}

/** Every status the purchase badge shows from now on, however briefly (a MutationObserver in the page). */
async function recordPurchaseStatuses(page: Page): Promise<() => Promise<string[]>> {
  // A string, not a function: the test project is typed without the DOM library.
  await page.evaluate(`(() => {
    const badge = document.getElementById('purchase-status');
    const seen = [badge.textContent];
    window.__purchaseStatuses = seen;
    new MutationObserver(() => {
      if (seen[seen.length - 1] !== badge.textContent) seen.push(badge.textContent);
    }).observe(badge, { childList: true, characterData: true, subtree: true });
  })()`);
  return () => page.evaluate('window.__purchaseStatuses') as Promise<string[]>;
}

function purchasesOf(workspaceId: string) {
  return portal.database.db
    .selectFrom('credit_purchases')
    .select(['id', 'status', 'package_id'])
    .where('workspace_id', '=', workspaceId)
    .execute();
}

function intentsOf(purchaseId: string) {
  return portal.database.db
    .selectFrom('payment_intents')
    .select(['status', 'method', 'tx_hash'])
    .where('credit_purchase_id', '=', purchaseId)
    .execute();
}

const balance = (address: Address) => usdcBalance(chain.rpcUrl, address);

describe('paying a credit purchase in the portal', () => {
  it(
    'a workspace out of credits buys a package with its wallet, follows it to paid without a reload, and creates the next invoice',
    { timeout: 120_000 },
    async () => {
      const owner = await chain.payer(25_000_000n);
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      const wallet = await injectTestWallet(context, owner, chain.rpcUrl, chain.network.chainId);
      const page = await context.newPage();
      const problems = watchPage(page, portal.origin);
      const workspaceId = await signInWithWorkspace(page, owner.address, 'Corner Shop');

      // The grant pays for one invoice; the next one is refused, and the portal says why.
      await submitInvoice(page, '1,5');
      await page.getByRole('heading', { name: /INV-\d{6}/ }).waitFor();
      await submitInvoice(page, '2');
      await page.locator('#invoice-form .notice.error', { hasText: NO_CREDITS }).waitFor();

      // The low-credits issue above the tabs leads to the billing tab.
      const issues = page.locator('#issues');
      await issues.getByText('Credits are running low').waitFor();
      await issues.getByRole('link', { name: 'Buy credits' }).click();
      await page.getByRole('heading', { name: 'Buy credits' }).waitFor();
      expect(new URL(page.url()).hash).toBe('#billing');
      await page.locator('#billing-tab-balance', { hasText: /^1$/ }).waitFor();
      expect(await text(page, '#billing-tab-available')).toBe('0');

      await page.getByRole('button', { name: 'Buy starter' }).click();
      const detail = page.locator('#purchase-detail');
      await detail.getByText('10.00 USDC').waitFor();
      const [purchase] = await purchasesOf(workspaceId);
      expect(purchase).toMatchObject({ status: 'open', package_id: 'starter' });
      expect(await text(page, '#purchase-status')).toBe('open');
      // Those paying another way get the x402 URL and the EIP-681 URI, both paying exactly the price to the operator.
      const links = (await page.locator('#purchase-links').textContent()) ?? '';
      expect(links).toContain(`${portal.origin}/w/${workspaceId}/x402/credit-purchases/${purchase!.id}`);
      expect(links).toContain(
        `ethereum:${getAddress(chain.network.usdc)}@${chain.network.chainId}/transfer?address=${OPERATOR}&uint256=${STARTER.price}`,
      );
      expect(await detail.textContent()).not.toMatch(/not (open|available) yet|coming soon|do not send/i);

      await screenshot(page, 'portal-billing-pay');
      const statuses = await recordPurchaseStatuses(page);
      const before = await Promise.all([balance(owner.address), balance(OPERATOR)]);
      await page.evaluate('window.__samePage = true'); // a reload would lose it
      const signInCalls = wallet.calls.length;
      await detail.getByRole('button', { name: 'Pay with Test Wallet' }).click();
      await page.locator('#purchase-status', { hasText: /^paid$/ }).waitFor(SETTLED);

      expect(await statuses()).toEqual(['open', 'processing', 'paid']);
      expect(await page.evaluate('window.__samePage')).toBe(true);
      expect(wallet.calls.slice(signInCalls)).toEqual(['eth_requestAccounts', 'eth_chainId', 'eth_signTypedData_v4']);
      // Exactly the price moved from the signing wallet to the operator wallet, once.
      const after = await Promise.all([balance(owner.address), balance(OPERATOR)]);
      expect([before[0] - after[0], after[1] - before[1]]).toEqual([STARTER.price, STARTER.price]);
      const intents = await intentsOf(purchase!.id);
      expect(intents).toEqual([{ status: 'succeeded', method: 'authorization', tx_hash: expect.any(String) }]);
      const payment = page.locator('#purchase-payment-facts');
      await payment.getByText('succeeded').waitFor();
      expect(await text(page, '#purchase-tx')).toBe(intents[0]!.tx_hash);
      expect(await text(page, '#purchase-state')).toBe('Paid: 100 credits added to the balance.');
      expect(await page.locator('#purchase-pay').isHidden()).toBe(true);
      expect(await page.locator('#purchase-other-ways').isHidden()).toBe(true);

      // Balance, ledger and history are read again; the low-credits issue is gone.
      await page.locator('#billing-tab-balance', { hasText: new RegExp(`^${1 + STARTER.credits}$`) }).waitFor();
      expect(await text(page, '#billing-tab-available')).toBe(String(STARTER.credits));
      const entry = page.locator('#ledger-rows tr').first();
      await entry.getByText('Credit purchase').waitFor();
      expect(await entry.textContent()).toContain(purchase!.id);
      expect(await entry.locator('td[data-label="Change"]').textContent()).toBe(`+${STARTER.credits}`);
      await page
        .locator('#purchase-rows tr')
        .first()
        .locator('.badge', { hasText: /^paid$/ })
        .waitFor();
      await issues.waitFor({ state: 'hidden' });
      await screenshot(page, 'portal-billing-paid');

      // The next invoice is created.
      await submitInvoice(page, '2');
      await page.getByRole('heading', { name: /INV-\d{6}/ }).waitFor();
      const invoices = await portal.database.db
        .selectFrom('invoices')
        .select('amount')
        .where('workspace_id', '=', workspaceId)
        .orderBy('created_at')
        .execute();
      expect(invoices.map((invoice) => String(invoice.amount))).toEqual(['1500000', '2000000']);

      // The one refused invoice is the only request the browser reports as failed.
      expect(problems).toEqual([expect.stringMatching(/status of 402 .*\/invoices\)$/)]);
      await context.close();
    },
  );

  it(
    "shows the service's reason when the wallet cannot pay, and follows a submitted transfer to paid after a reload",
    { timeout: 120_000 },
    async () => {
      const owner = newWallet(); // holds no USDC
      const context = await browser.newContext();
      await injectTestWallet(context, owner, chain.rpcUrl, chain.network.chainId);
      const page = await context.newPage();
      const problems = watchPage(page, portal.origin);
      const workspaceId = await signInWithWorkspace(page, owner.address, 'Tea Room');

      await tab(page, 'Billing').click();
      await page.getByRole('button', { name: 'Buy starter' }).click();
      const detail = page.locator('#purchase-detail');
      await detail.getByRole('button', { name: 'Pay with Test Wallet' }).click();
      await page
        .locator('#purchase-pay-error', {
          hasText: 'This payment was not accepted: the wallet did not hold enough USDC.',
        })
        .waitFor();
      expect(await text(page, '#purchase-status')).toBe('open');
      expect(await detail.getByRole('button', { name: 'Pay with Test Wallet' }).isEnabled()).toBe(true);
      const [purchase] = await purchasesOf(workspaceId);
      expect(await intentsOf(purchase!.id)).toEqual([]);

      // Someone else sends the price with a plain transfer; the owner reloads and reports its hash.
      const sender = await chain.payer(STARTER.price);
      await fundGas(chain.rpcUrl, sender.address);
      const operatorBefore = await balance(OPERATOR);
      const sent = await transfer(chain.rpcUrl, sender, OPERATOR, STARTER.price);
      await page.reload();
      await page
        .locator('#purchase-rows')
        .getByRole('button', { name: `Pay purchase ${purchase!.id}` })
        .click();
      await detail.locator('#purchase-status', { hasText: /^open$/ }).waitFor();
      await page.locator('#purchase-tx-hash').fill('0x1234');
      await detail.getByRole('button', { name: 'Submit transaction' }).click();
      await detail.getByText('A transaction hash is 0x followed by 64 hexadecimal characters.').waitFor();
      await page.locator('#purchase-tx-hash').fill(sent.hash);
      await detail.getByRole('button', { name: 'Submit transaction' }).click();
      await page.locator('#purchase-status', { hasText: /^paid$/ }).waitFor(SETTLED);

      expect(await text(page, '#purchase-tx')).toBe(sent.hash);
      await page.locator('#purchase-payment-facts').getByText('Submitted transaction').waitFor();
      await page.locator('#billing-tab-balance', { hasText: new RegExp(`^${2 + STARTER.credits}$`) }).waitFor();
      await page.locator('#ledger-rows tr').first().getByText(purchase!.id).waitFor();
      expect(await intentsOf(purchase!.id)).toEqual([
        { status: 'succeeded', method: 'transaction', tx_hash: sent.hash },
      ]);
      expect((await balance(OPERATOR)) - operatorBefore).toBe(STARTER.price);
      // The refused authorization is the only failed request.
      expect(problems).toEqual([expect.stringMatching(/status of 400 .*\/authorizations\)$/)]);
      await context.close();
    },
  );
});
