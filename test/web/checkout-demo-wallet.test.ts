import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { expect, it } from 'vitest';
import { usdcBalance } from '../../src/chain/local-chain.js';
import { launchBrowser } from '../support/browser.js';
import { createTestChain } from '../support/chain.js';
import { BASE_URL } from '../support/app.js';
import { checkoutShop, servePublicOrigin, startCheckoutApp } from '../support/checkout-browser.js';

// The local demo: the service offers its built-in wallet, which the page lists like any other.
const chain = await createTestChain();
const merchant = privateKeyToAccount(generatePrivateKey());
const buyer = await chain.payer(20_000_000n);
const paying = await startCheckoutApp(chain, {
  demoWallet: { chainId: chain.network.chainId, rpcUrl: chain.rpcUrl, merchant, buyer },
});
const browser = await launchBrowser();
const shop = await checkoutShop(paying, 'Demo Shop', 'The local demo.', merchant);

it(
  "in the local demo, offers the built-in demo buyer wallet (not the merchant's) and pays with it",
  { timeout: 60_000 },
  async () => {
    const invoice = await shop.invoice({ amount: '7' });
    const context = await browser.newContext();
    await servePublicOrigin(context, paying);
    const page = await context.newPage();
    await page.goto(`${BASE_URL}${invoice.path}`);
    expect(await page.locator('script[src="/demo-wallet.js?roles=buyer"]').count()).toBe(1);

    // The demo buyer, who holds the test USDC, is the one offered: the demo merchant is the recipient.
    const buyerButton = page.getByRole('button', { name: 'Pay with Demo wallet: buyer (local chain only)' });
    await buyerButton.waitFor();
    expect(await page.locator('#wallets button').allInnerTexts()).toEqual([
      'Pay with Demo wallet: buyer (local chain only)',
    ]);
    await buyerButton.click();
    await page.locator('#notice-paid').waitFor({ timeout: 30_000 });
    expect(await usdcBalance(chain.rpcUrl, buyer.address)).toBe(13_000_000n);
    await context.close();
  },
);
