import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { setEthBalance, usdcBalance } from '../../src/chain/local-chain.js';
import { auditPage } from '../support/axe.js';
import { injectTestWallet, launchBrowser } from '../support/browser.js';
import { createTestChain } from '../support/chain.js';
import { checkoutShop } from '../support/checkout-browser.js';
import { startPayingApp } from '../support/paying-app.js';

// Two networks, each a real anvil with its own chain id; one relayer pays the gas on both.
const baseSepolia = await createTestChain();
const other = await createTestChain({ network: { name: 'other-chain', chainId: 31337 } });
const relayer = baseSepolia.chain.relayer;
const FUNDED = 10n ** 20n;
await setEthBalance(other.rpcUrl, relayer, FUNDED);
const paying = await startPayingApp({ networks: [baseSepolia.network, other.network], chain: baseSepolia.chain });
const browser = await launchBrowser();
const shop = await checkoutShop(paying);

const GASLESS_OFF =
  /^Paying from a browser wallet without a gas fee is unavailable right now\. Send the amount from any wallet below/;

/** The page as the buyer sees it once its script runs, for the network chosen. */
async function waysToPay(page: Page) {
  await page.locator('#tx-form').waitFor(); // drawn hidden, shown by the script
  return {
    walletButton: await page.getByRole('button', { name: 'Pay with Test Wallet' }).isVisible(),
    walletSection: await page.locator('#wallet-pay').isVisible(),
    line: (await page.locator('#gasless-off').isVisible()) ? await page.locator('#gasless-off').textContent() : null,
    transfer:
      (await page.locator('.network-panel:visible a.qr').isVisible()) && (await page.locator('#tx-hash').isEditable()),
  };
}

it('a relayer that cannot pay gas on a network: the checkout offers the plain transfer there instead of the wallet button, and nothing moves; funded again, the button is back after a reload', async () => {
  await setEthBalance(baseSepolia.rpcUrl, relayer, 0n);
  const invoice = await shop.invoice({ amount: '2.5' });
  const payer = await baseSepolia.payer(10_000_000n);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const wallet = await injectTestWallet(context, payer, baseSepolia.rpcUrl, baseSepolia.network.chainId);
  const page = await context.newPage();
  await page.goto(invoice.link);

  // base-sepolia, chosen first: no wallet button, the line, and the transfer with its QR code and hash form.
  await page.getByRole('radio', { name: /Base Sepolia/ }).waitFor();
  expect(await waysToPay(page)).toEqual({
    walletButton: false,
    walletSection: false,
    line: expect.stringMatching(GASLESS_OFF),
    transfer: true,
  });
  expect(await page.locator('#gasless-off').textContent()).not.toMatch(/relayer/i);
  expect(await auditPage(page, 'checkout-gasless-off-1280')).toEqual([]);

  // The other network's relayer can pay: its wallet button is there.
  await page.getByRole('radio', { name: /Local test chain/ }).check();
  await page.getByRole('button', { name: 'Pay with Test Wallet' }).waitFor();
  expect(await waysToPay(page)).toEqual({ walletButton: true, walletSection: true, line: null, transfer: true });

  // The JSON details say the same, for any other client of the link.
  const details = await paying.app.inject({
    method: 'GET',
    url: invoice.path,
    headers: { accept: 'application/json' },
  });
  expect(details.json<{ networks: { name: string; gasless: boolean }[] }>().networks).toEqual([
    expect.objectContaining({ name: 'base-sepolia', gasless: false }),
    expect.objectContaining({ name: 'other-chain', gasless: true }),
  ]);
  expect(wallet.calls).toEqual([]);
  expect(await usdcBalance(baseSepolia.rpcUrl, payer.address)).toBe(10_000_000n);
  expect(await shop.status(invoice.id)).toBe('open');
  const intents = await paying.database.db
    .selectFrom('payment_intents')
    .select('id')
    .where('invoice_id', '=', invoice.id)
    .execute();
  expect(intents).toEqual([]);

  // Funded again: after a reload the wallet button is back on base-sepolia, and it pays.
  await setEthBalance(baseSepolia.rpcUrl, relayer, FUNDED);
  await page.reload();
  await page.getByRole('button', { name: 'Pay with Test Wallet' }).waitFor();
  expect(await waysToPay(page)).toEqual({ walletButton: true, walletSection: true, line: null, transfer: true });
  await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
  await page.locator('#notice-paid').waitFor({ timeout: 30_000 });
  expect(await usdcBalance(baseSepolia.rpcUrl, payer.address)).toBe(7_500_000n);
  await context.close();
});
