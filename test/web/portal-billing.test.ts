import { getAddress } from 'viem';
import { expect, it } from 'vitest';
import { injectTestWallet, launchBrowser, screenshot } from '../support/browser.js';
import { TEST_OPERATOR_WALLET, newWallet } from '../support/app.js';
import { startPortalApp, watchPage, workspacesOf } from '../support/portal-browser.js';

// The wallet signs in only; it sends no transaction, so its RPC address is never used.
const UNUSED_RPC = 'http://127.0.0.1:9';
const portal = await startPortalApp();
const browser = await launchBrowser();

it(
  'the billing tab buys a package, lists the purchase and shows the ledger; a later workspace says why it has 0',
  { timeout: 90_000 },
  async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const account = newWallet();
    await injectTestWallet(context, account, UNUSED_RPC, 84532);
    const page = await context.newPage();
    const problems = watchPage(page, portal.origin);
    const tab = (name: string) => page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name });

    await page.goto(`${portal.origin}/portal`);
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    const create = page.locator('#workspace-create');
    await create.getByLabel('Name').fill('Corner Shop');
    await create.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Corner Shop' }).waitFor();

    await tab('Billing').click();
    await page.locator('#billing-tab-balance').getByText('100').waitFor();
    await page.locator('#package-list').getByText('1000 credits for 90.00 USDC').waitFor();
    await page.getByRole('button', { name: 'Buy growth' }).click();
    const detail = page.locator('#purchase-detail');
    await detail.getByText('90.00 USDC').waitFor();
    expect(await detail.locator('#purchase-status').textContent()).toBe('open');
    await detail.getByText(getAddress(TEST_OPERATOR_WALLET)).waitFor();
    await page.locator('#purchase-rows tr').first().getByText('growth').waitFor();
    // Nothing is paid, so the balance and the ledger are as the grant left them.
    await page.locator('#ledger-rows').getByText('New-workspace grant').waitFor();
    expect(await page.locator('#ledger-rows tr').count()).toBe(1);
    const [workspaceId] = await workspacesOf(portal, account.address);
    const stored = await portal.database.db
      .selectFrom('credit_purchases')
      .select(['package_id', 'source'])
      .where('workspace_id', '=', workspaceId!)
      .execute();
    expect(stored).toEqual([{ package_id: 'growth', source: 'portal' }]);
    await screenshot(page, 'portal-billing');

    // The wallet's second workspace starts with 0 credits, and both the overview and the billing tab say why.
    await page.getByRole('button', { name: 'New workspace' }).click();
    await create.getByLabel('Name').fill('Second Shop');
    await create.getByRole('button', { name: 'Create workspace' }).click();
    await tab('Overview').click();
    await page.getByRole('heading', { name: 'Second Shop' }).waitFor();
    await page.locator('#billing-balance').getByText('0').waitFor();
    await page.locator('#billing-grant-note').waitFor();
    expect(await page.locator('#billing-grant-note').textContent()).toContain('granted once per wallet');
    await tab('Billing').click();
    await page.locator('#billing-tab-grant-note').waitFor();
    expect(await page.locator('#purchase-detail').isHidden()).toBe(true);

    expect(problems).toEqual([]);
    await context.close();
  },
);
