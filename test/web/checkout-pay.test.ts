import { describe, expect, it } from 'vitest';
import { usdcBalance } from '../../src/chain/local-chain.js';
import { injectTestWallet, launchBrowser } from '../support/browser.js';
import { createTestChain } from '../support/chain.js';
import { fundGas, transfer } from '../support/checkout.js';
import { RETURN_ORIGIN, checkoutShop, foreignRequests, recordStatuses } from '../support/checkout-browser.js';
import { startPayingApp } from '../support/paying-app.js';

const chain = await createTestChain();
const paying = await startPayingApp(chain);
const browser = await launchBrowser();
const shop = await checkoutShop(paying);
const PAID = { timeout: 30_000 };

const intentsOf = (invoiceId: string) =>
  paying.database.db
    .selectFrom('payment_intents')
    .select(['status', 'method'])
    .where('invoice_id', '=', invoiceId)
    .execute();

describe('paying on the checkout page', () => {
  it('with a browser wallet: switches chain, signs the EIP-3009 authorization, and shows paid without a reload; money moves once', async () => {
    const invoice = await shop.invoice({
      amount: '4.2',
      successUrl: `${RETURN_ORIGIN}/thanks`,
      cancelUrl: `${RETURN_ORIGIN}/cart`,
    });
    const payer = await chain.payer(10_000_000n);
    const context = await browser.newContext();
    // The wallet starts on Ethereum mainnet: the page must ask it to switch to the invoice's network.
    const wallet = await injectTestWallet(context, payer, chain.rpcUrl, 1);
    const page = await context.newPage();
    const foreign = foreignRequests(page, paying.origin);
    let navigations = 0;
    page.on('framenavigated', (frame) => frame === page.mainFrame() && (navigations += 1));
    await page.goto(invoice.link);
    const statuses = await recordStatuses(page);
    const before = await Promise.all([
      usdcBalance(chain.rpcUrl, payer.address),
      usdcBalance(chain.rpcUrl, shop.wallet.address),
    ]);

    await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    await page.locator('#notice-paid').waitFor(PAID);

    expect(await statuses()).toEqual(['open', 'processing', 'paid']);
    expect(navigations).toBe(1); // no reload, no automatic redirect
    expect(page.url()).toBe(invoice.link);
    expect(await page.locator('#status').textContent()).toBe('Paid');
    expect(await page.locator('#pay').isVisible()).toBe(false);
    expect(await page.locator('#back-link').getAttribute('href')).toBe(`${RETURN_ORIGIN}/thanks`);
    // The receipt names the transaction; with no explorer configured for the network it is not a link.
    const [paid] = await paying.database.db
      .selectFrom('payment_intents')
      .select('tx_hash')
      .where('invoice_id', '=', invoice.id)
      .execute();
    expect(await page.locator('#receipt-tx').getAttribute('title')).toBe(paid!.tx_hash);
    expect(await page.locator('#receipt-tx-link').isVisible()).toBe(false);
    expect(await page.locator('#receipt-tx-link').getAttribute('href')).toBeNull();
    expect(wallet.calls).toEqual([
      'eth_requestAccounts',
      'eth_chainId',
      'wallet_switchEthereumChain',
      'eth_chainId',
      'eth_signTypedData_v4',
    ]);
    const after = await Promise.all([
      usdcBalance(chain.rpcUrl, payer.address),
      usdcBalance(chain.rpcUrl, shop.wallet.address),
    ]);
    expect([before[0] - after[0], after[1] - before[1]]).toEqual([4_200_000n, 4_200_000n]);
    expect(await intentsOf(invoice.id)).toEqual([{ status: 'succeeded', method: 'authorization' }]);
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('with a wallet short of USDC: says so in a sentence, never as a code, and the invoice stays payable', async () => {
    const invoice = await shop.invoice({ amount: '2' });
    const broke = await chain.payer(1_000_000n); // half the amount
    const context = await browser.newContext();
    await injectTestWallet(context, broke, chain.rpcUrl, chain.network.chainId);
    const page = await context.newPage();
    await page.goto(invoice.link);
    await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    const error = page.locator('#wallet-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('This payment was not accepted: the wallet did not hold enough USDC.');
    expect(await page.locator('main').innerText()).not.toMatch(/insufficient_balance|[a-z]+_[a-z]+/);
    expect(await page.locator('#status').getAttribute('data-status')).toBe('open');
    expect(await page.locator('#pay').isVisible()).toBe(true);
    expect(await usdcBalance(chain.rpcUrl, broke.address)).toBe(1_000_000n);
    expect(await intentsOf(invoice.id)).toEqual([]);
    await context.close();
  });

  it('from any wallet: the pasted hash of a plain USDC transfer with its confirmations shows paid', async () => {
    const invoice = await shop.invoice({ amount: '1.75' });
    const payer = await chain.payer(5_000_000n);
    await fundGas(chain.rpcUrl, payer.address);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(invoice.link);
    const statuses = await recordStatuses(page);

    const sent = await transfer(chain.rpcUrl, payer, shop.wallet.address, 1_750_000n);
    await page.locator('#tx-hash').fill(sent.hash);
    await page.getByRole('button', { name: 'Submit transaction' }).click();
    await page.locator('#notice-paid').waitFor(PAID);

    // A pasted hash holds nothing until the chain shows its transfer; this one has its one confirmation
    // already, so the service finds it and records it paid at once (test/web/checkout-hash.test.ts shows
    // the processing step in between on a network that needs more).
    expect(await statuses()).toEqual(['open', 'paid']);
    expect(await intentsOf(invoice.id)).toEqual([{ status: 'succeeded', method: 'transaction' }]);

    // The same transfer cannot pay a second invoice: the API's sentence is shown as it is.
    const second = await shop.invoice({ amount: '1.75' });
    await page.goto(second.link);
    await page.locator('#tx-hash').fill(sent.hash);
    await page.getByRole('button', { name: 'Submit transaction' }).click();
    await page.locator('#tx-error', { hasText: 'already paid an invoice' }).waitFor();
    expect(await page.locator('#status').getAttribute('data-status')).toBe('open');

    // A malformed hash is caught before it is sent.
    await page.locator('#tx-hash').fill('0x1234');
    await page.getByRole('button', { name: 'Submit transaction' }).click();
    await page.locator('#tx-error', { hasText: '64 hexadecimal characters' }).waitFor();
    await context.close();
  });
});
