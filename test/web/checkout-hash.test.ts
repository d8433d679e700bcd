import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { auditPage } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { fundGas, transfer } from '../support/checkout.js';
import { checkoutShop, recordStatuses } from '../support/checkout-browser.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { startPayingApp } from '../support/paying-app.js';

// Blocks come only from the test (and one per transaction sent): a transfer stays found and short of its
// three confirmations until the test mines them. The process hears every change, as `npm start` serves pages.
const chain = await createControlledChain({ confirmations: 3 });
const paying = await startPayingApp(chain, { orderChanges: true });
const browser = await launchBrowser();
const shop = await checkoutShop(paying);
const SEEN = { timeout: 30_000 };

/** The ways to pay a buyer needs, all on screen. */
async function expectWaysToPay(page: Page, amount: string): Promise<void> {
  expect(await page.locator('#status').getAttribute('data-status')).toBe('open');
  expect(await page.locator('#pay').isVisible()).toBe(true);
  expect(await page.locator('#recipient').textContent()).toMatch(/^0x[0-9a-fA-F]{40}$/);
  expect(await page.locator('#amount-exact').textContent()).toBe(amount);
  // A phone leads with the wallet-app link, a desktop with the QR code; both have the browser-wallet part.
  const phone = page.viewportSize()!.width < 960;
  const walletApp = phone ? page.locator('a.open-wallet') : page.locator('.network-panel a.qr');
  expect(await walletApp.isVisible()).toBe(true);
  expect(await page.locator('#wallet-pay').isVisible()).toBe(true);
  expect(await page.locator('#tx-hash').isVisible()).toBe(true);
  expect(await page.locator('#tx-hash').isEditable()).toBe(true);
  expect(await page.getByRole('button', { name: 'Submit transaction' }).isEnabled()).toBe(true);
  expect(await page.locator('#notice-processing').isVisible()).toBe(false);
}

async function paste(page: Page, hash: string): Promise<void> {
  await page.locator('#tx-hash').fill(hash);
  await page.getByRole('button', { name: 'Submit transaction' }).click();
}

const short = (hash: string) => `${hash.slice(0, 10)}…${hash.slice(-8)}`;

describe('a hash pasted on the checkout page', () => {
  it('a made-up hash: the invoice stays open, the address and every way to pay stay, a note beside the field says so — also after a reload', async () => {
    const invoice = await shop.invoice({ amount: '3.5' });
    // A phone: the note must fit beside the field there too.
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await page.goto(invoice.link);
    const statuses = await recordStatuses(page);
    const madeUp = `0x${'5c'.repeat(32)}`;

    await paste(page, madeUp);
    const note = page.locator('#tx-note', { hasText: `Looking for transaction ${short(madeUp)} on the network` });
    await note.waitFor();
    expect(await note.textContent()).toContain('nothing is paid');
    expect(await page.locator('#tx-hash').inputValue()).toBe(''); // free for another hash at once
    await expectWaysToPay(page, '3.50');
    expect(await shop.status(invoice.id)).toBe('open');
    expect(await statuses()).toEqual(['open']);
    expect(await auditPage(page, 'checkout-hash-unseen-390')).toEqual([]);

    await page.reload();
    await note.waitFor();
    await expectWaysToPay(page, '3.50');
    expect(await shop.status(invoice.id)).toBe('open');

    // Another hash replaces it at once, and the note follows the new one.
    const other = `0x${'5d'.repeat(32)}`;
    await paste(page, other);
    await page.locator('#tx-note', { hasText: short(other) }).waitFor();
    await expectWaysToPay(page, '3.50');
    expect(await page.locator('#tx-error').isVisible()).toBe(false);
    await page.context().close();
  });

  it('a transfer of another amount: the reason beside the field, every way to pay stays; the right transfer then shows processing, then paid', async () => {
    const invoice = await shop.invoice({ amount: '2' });
    const payer = await chain.payer(10_000_000n);
    await fundGas(chain.rpcUrl, payer.address);
    const page = await (await browser.newContext()).newPage();
    await page.goto(invoice.link);

    const wrong = await transfer(chain.rpcUrl, payer, shop.wallet.address, 1_000_000n);
    await paste(page, wrong.hash);
    await page.locator('#tx-note', { hasText: 'Looking for transaction' }).waitFor();
    await chain.mine(2); // its confirmations: now it is judged
    const refused = page.locator('#tx-note', { hasText: `Transaction ${short(wrong.hash)} does not pay this invoice` });
    await refused.waitFor(SEEN);
    expect(await refused.textContent()).toContain('the transaction did not send exactly the invoice amount.');
    expect(await refused.getAttribute('data-kind')).toBe('refused');
    expect(await page.locator('#notice-failed').isVisible()).toBe(false); // told once, beside the field
    expect(await auditPage(page, 'checkout-hash-refused-1280')).toEqual([]);
    await expectWaysToPay(page, '2.00');
    expect(await shop.status(invoice.id)).toBe('open');
    await page.reload();
    await refused.waitFor();
    await expectWaysToPay(page, '2.00');
    const statuses = await recordStatuses(page);

    // Only a transfer seen on the chain paying the invoice makes the page say it is being confirmed.
    const right = await transfer(chain.rpcUrl, payer, shop.wallet.address, 2_000_000n);
    await paste(page, right.hash);
    await page.locator('#notice-processing').waitFor(SEEN);
    expect(await page.locator('#pay').isVisible()).toBe(false);
    expect(await shop.status(invoice.id)).toBe('processing');
    await chain.mine(2);
    await page.locator('#notice-paid').waitFor(SEEN);
    expect(await statuses()).toEqual(['open', 'processing', 'paid']);
    await page.context().close();
  });
});
