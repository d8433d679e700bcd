import { expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { newWallet } from '../support/app.js';
import { startPortalApp, watchPage } from '../support/portal-browser.js';

// The local demo: the service serves its built-in wallet, and the portal lists it like any other.
const merchant = newWallet();
const portal = await startPortalApp({
  demoWallet: { chainId: 84532, rpcUrl: 'http://127.0.0.1:9', merchant, buyer: newWallet() },
});
const browser = await launchBrowser();

it(
  'in the local demo, a visitor without a wallet extension signs in with the labelled demo merchant wallet (the demo buyer owns no workspace and is not offered)',
  { timeout: 60_000 },
  async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchPage(page, portal.origin);
    await page.goto(`${portal.origin}/portal`);
    expect(await page.locator('script[src="/demo-wallet.js"]').count()).toBe(1);
    const wallets = page.getByRole('group', { name: 'Wallets found in this browser' });
    await wallets.getByRole('button', { name: 'Sign in with Demo wallet: merchant (local chain only)' }).waitFor();
    expect(await wallets.getByRole('button').allTextContents()).toEqual([
      'Sign in with Demo wallet: merchant (local chain only)',
    ]);
    await wallets.getByRole('button', { name: 'Sign in with Demo wallet: merchant (local chain only)' }).click();
    await page.getByRole('heading', { name: 'Create a workspace' }).waitFor();
    expect(await page.locator('#session-address').getAttribute('title')).toBe(merchant.address.toLowerCase());
    expect(problems).toEqual([]);
    await context.close();
  },
);

it('offers no demo wallet when the service has none', async () => {
  const plain = await startPortalApp();
  const page = (await plain.app.inject({ method: 'GET', url: '/portal' })).body;
  expect(page).not.toContain('demo-wallet');
  expect(page).not.toContain('Local demo');
});
