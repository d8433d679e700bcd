import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { InvoiceId } from '../../src/modules/invoices/index.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { readFile } from 'node:fs/promises';
import { newWallet } from '../support/app.js';
import { auditPage } from '../support/axe.js';
import { injectTestWallet, launchBrowser, screenshot } from '../support/browser.js';
import { createTestChain } from '../support/chain.js';
import { pdfText } from '../support/pdf.js';
import { OffsetClock, checkoutShop, startCheckoutApp, type CheckoutInvoice } from '../support/checkout-browser.js';

// The operator configured a block explorer for the network: receipts link the paying transaction.
const EXPLORER = 'https://sepolia.basescan.org';
const clock = new OffsetClock();
const chain = await createTestChain();
const paying = await startCheckoutApp(
  { ...chain, networks: chain.networks.map((network) => ({ ...network, explorerUrl: EXPLORER })) },
  { clock },
);
const browser = await launchBrowser();
const shop = await checkoutShop(paying);
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

const paidRow = (invoiceId: string) =>
  paying.database.db
    .selectFrom('invoices')
    .innerJoin('payment_intents', 'payment_intents.invoice_id', 'invoices.id')
    .select(['invoices.paid_at', 'payment_intents.tx_hash'])
    .where('invoices.id', '=', invoiceId)
    .where('payment_intents.status', '=', 'succeeded')
    .executeTakeFirstOrThrow();

/** Pays `invoice` on its page with a funded browser wallet, as a buyer on a phone; the page stays open. */
async function payInBrowser(invoice: CheckoutInvoice): Promise<Page> {
  const context = await browser.newContext({ viewport: PHONE });
  await injectTestWallet(context, await chain.payer(10_000_000n), chain.rpcUrl, chain.network.chainId);
  const page = await context.newPage();
  await page.goto(invoice.link);
  await page.getByRole('button', { name: 'Pay with Test Wallet' }).click();
  await page.locator('#receipt').waitFor({ timeout: 30_000 });
  return page;
}

/** The script has run: it localises the deadline, which the server writes in UTC. */
// Polled through locators: a string evaluated in the page is refused by its CSP (no 'unsafe-eval').
const scriptRan = (page: Page) =>
  expect.poll(() => page.locator('#deadline').textContent(), { timeout: 10_000 }).not.toMatch(/UTC$/);

describe('the buyer receipt', () => {
  it('appears when the payment lands: amount, paid time, the transaction linked on the explorer, and no deadline', async () => {
    const invoice = await shop.invoice({ amount: '4.2' });
    const page = await payInBrowser(invoice);
    const { paid_at: paidAt, tx_hash: hash } = await paidRow(invoice.id);
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);

    const receipt = await page.locator('#receipt').innerText();
    for (const expected of ['Receipt', 'Corner Shop', invoice.number, '4.20 USDC', 'Base Sepolia', 'Testnet'])
      expect(receipt).toContain(expected);
    expect(await page.locator('#receipt-paid-at').getAttribute('datetime')).toBe(paidAt!.toISOString());
    const shown = page.locator('#receipt-tx');
    expect(await shown.textContent()).toBe(`${hash!.slice(0, 10)}…${hash!.slice(-8)}`);
    expect(await shown.getAttribute('title')).toBe(hash);
    expect(await page.locator('#receipt-tx-link').getAttribute('href')).toBe(`${EXPLORER}/tx/${hash}`);
    expect(await page.locator('#deadline-line').isVisible()).toBe(false);
    expect(await page.locator('#time-left').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Print receipt' }).isVisible()).toBe(true);

    expect(await page.locator('#receipt-payer').innerText()).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The buyer's local time names its zone; the UTC time is in its title.
    expect(await page.locator('#receipt-paid-at').getAttribute('title')).toMatch(/ UTC$/);

    // The receipt's own number, and the same receipt as a PDF to keep.
    const receiptNumber = (await page.locator('#receipt-number').innerText()).trim();
    expect(receiptNumber).toMatch(/^RCT-\d{6}$/);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download receipt (PDF)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${receiptNumber}.pdf`);
    const text = await pdfText(await readFile(await download.path()));
    for (const expected of [receiptNumber, invoice.number, hash!, 'Corner Shop', '4.20 USDC'])
      expect(text).toContain(expected);

    // Printed, the receipt is the whole page.
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#receipt').isVisible()).toBe(true);
    for (const other of [
      '.merchant',
      '.summary',
      '#notice-paid',
      '.footer',
      '#print-receipt',
      '#receipt-pdf',
      '#receipt-tx-link',
    ])
      expect(await page.locator(other).isVisible(), other).toBe(false);
    // On paper the full hash stands in for the short one (generated content, which innerText leaves out).
    expect(await page.evaluate("getComputedStyle(document.getElementById('receipt-tx'), '::after').content")).toBe(
      `"${hash}"`,
    );
    await screenshot(page, 'checkout-receipt-print');
    await page.context().close();
  });

  it('is on the page the server draws for a paid invoice, without JavaScript', async () => {
    const invoice = await shop.invoice({ amount: '1.5' });
    await (await payInBrowser(invoice)).context().close();
    const { tx_hash: hash } = await paidRow(invoice.id);
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: PHONE });
    const page = await context.newPage();
    await page.goto(invoice.link);
    expect(await page.locator('#receipt').isVisible()).toBe(true);
    expect(await page.locator('#receipt').innerText()).toContain('1.50 USDC');
    expect(await page.locator('#receipt-paid-at').innerText()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(await page.locator('#receipt-tx').getAttribute('title')).toBe(hash);
    expect(await page.locator('#receipt-tx-link').getAttribute('href')).toBe(`${EXPLORER}/tx/${hash}`);
    expect(await page.locator('#receipt-pdf').getAttribute('href')).toBe(
      `${new URL(invoice.link).pathname}/receipt.pdf`,
    );
    expect(await page.locator('#deadline-line').isVisible()).toBe(false);
    await context.close();
  });
});

/** As if `invoice` had been issued while the workspace received at another address. */
const bindToOldAddress = (invoice: CheckoutInvoice) =>
  paying.database.db
    .updateTable('invoices')
    .set({ pay_to: '0x000000000000000000000000000000000000dead' })
    .where('id', '=', invoice.id)
    .execute();

describe('a link issued for an address the merchant no longer receives at', () => {
  it('says it can no longer be paid, live as at first paint: no address, no QR code, no wallet button, no deadline', async () => {
    const invoice = await shop.invoice({ amount: '8' });
    await bindToOldAddress(invoice);
    const context = await browser.newContext({ viewport: PHONE });
    await injectTestWallet(context, newWallet(), chain.rpcUrl, chain.network.chainId);
    const page = await context.newPage();
    await page.goto(invoice.link);
    await scriptRan(page);
    const badge = page.locator('#status');
    expect({ status: await badge.getAttribute('data-status'), text: await badge.textContent() }).toEqual({
      status: 'unpayable',
      text: 'Cannot be paid',
    });
    expect(await page.locator('#notice-unpayable').isVisible()).toBe(true);
    expect(await page.locator('#notice-unpayable').innerText()).toContain('This payment link can no longer be paid.');
    for (const absent of ['#recipient', '.qr-code', '#pay', '#tx-form', '#wallets button'])
      expect(await page.locator(absent).count(), absent).toBe(0);
    expect(await page.locator('#deadline-line').isVisible()).toBe(false);
    expect(await page.locator('#notice-reopened').isVisible()).toBe(false);
    expect((await page.locator('main').innerText()).toLowerCase()).not.toContain(
      '0x000000000000000000000000000000000000dead',
    );
    await context.close();
  });
});

describe('checkout layout', () => {
  it('puts the way to pay before the QR code on a phone, and the QR code first on a desktop', async () => {
    const invoice = await shop.invoice({ amount: '9' });
    const phone = await browser.newContext({ viewport: PHONE });
    await injectTestWallet(phone, newWallet(), chain.rpcUrl, chain.network.chainId);
    const page = await phone.newPage();
    await page.goto(invoice.link);
    const pay = page.getByRole('button', { name: 'Pay with Test Wallet' });
    await pay.waitFor();
    // Amount, merchant and the pay button on the first screen; the QR code folded away below them.
    // Polled: the wallet buttons are drawn again when the wallets have announced themselves, and a box
    // read while they are redrawn is null.
    const top = async (locator: Locator) => (await locator.boundingBox())?.y ?? Number.POSITIVE_INFINITY;
    for (const first of [page.locator('#amount'), page.locator('.merchant h1'), pay])
      await expect.poll(async () => (await top(first)) + 10).toBeLessThan(PHONE.height);
    expect(await page.locator('.qr-code').isVisible()).toBe(false);
    const openWallet = page.getByRole('link', { name: 'Open in a wallet app' });
    const another = page.getByText('Pay from another device');
    await expect.poll(async () => (await top(openWallet)) < (await top(another))).toBe(true);
    // One primary action: with a browser wallet here, the wallet app and the hash form are the quieter ways.
    await expect.poll(() => openWallet.getAttribute('class')).not.toContain('primary');
    expect(await page.locator('.primary:visible').allInnerTexts()).toEqual(['Pay with Test Wallet']);
    await another.click();
    expect(await page.locator('.qr-code').isVisible()).toBe(true);
    await phone.close();

    const desktop = await browser.newContext({ viewport: DESKTOP });
    const wide = await desktop.newPage();
    await wide.goto(invoice.link);
    await scriptRan(wide);
    expect(await wide.locator('.qr-code').isVisible()).toBe(true);
    expect(await wide.getByRole('link', { name: 'Open in a wallet app' }).isVisible()).toBe(false);
    await desktop.close();
  });

  // Fourteen pages, each checked with axe: minutes on a loaded machine.
  it(
    'every state fits 390 px and 1280 px without sideways scrolling and has no serious accessibility violations (screenshots in test-results/)',
    { timeout: 180_000 },
    async () => {
      // The merchant's profile on every page: a support contact, and a light accent that needs dark text.
      const profile = { support_contact: 'help@corner.example', accent_color: '#ffd60a' };
      await paying.database.db.updateTable('workspaces').set(profile).where('id', '=', shop.workspaceId).execute();
      const FOR = 'Two bags of house blend\nground for filter';
      const invoice = (amount: string) => shop.invoice({ amount, description: FOR });
      const open = await invoice('24.9');
      const processing = await invoice('7');
      // As the settlement worker leaves it while the payment's block waits for its confirmations.
      await paying.database.db
        .updateTable('invoices')
        .set({ status: 'processing' })
        .where('id', '=', processing.id)
        .execute();
      const paid = await invoice('3');
      await (await payInBrowser(paid)).context().close();
      const cancelled = await invoice('5');
      await paying.services.invoices.cancel(shop.workspaceId as WorkspaceId, cancelled.id as InvoiceId);
      const expired = await invoice('6');
      const unpayable = await invoice('8');
      await bindToOldAddress(unpayable);
      const unknown = `${paying.origin}/w/${shop.workspaceId}/i/inv_00000000000000000000000000`;

      /** Each state's page, and whether the clock must be past its deadline to show it. */
      const states: readonly { state: string; link: string; late?: boolean }[] = [
        { state: 'open', link: open.link },
        { state: 'processing', link: processing.link },
        { state: 'paid', link: paid.link },
        { state: 'cancelled', link: cancelled.link },
        { state: 'expired', link: expired.link, late: true },
        { state: 'unpayable', link: unpayable.link },
        { state: 'not-found', link: unknown },
      ];
      const found: string[] = [];
      for (const { state, link, late } of states) {
        // Past the one-hour deadline.
        if (late) clock.jumpTo(new Date(Date.now() + 2 * 3600_000));
        try {
          for (const viewport of [PHONE, DESKTOP]) {
            const context = await browser.newContext({ viewport, colorScheme: 'light' });
            const page = await context.newPage();
            await page.goto(link);
            if (state === 'not-found') await page.getByRole('heading', { name: 'Not found' }).waitFor();
            else {
              await scriptRan(page);
              expect(await page.locator('#status').getAttribute('data-status')).toBe(state);
              // Who is paid, for what, and whom to ask: on every state's page, and on the receipt.
              const text = await page.locator('main').innerText();
              for (const expected of ['Corner Shop', 'Two bags of house blend', 'help@corner.example'])
                expect(text, `${state}: ${expected}`).toContain(expected);
              expect(await page.getByRole('link', { name: 'help@corner.example' }).first().getAttribute('href')).toBe(
                'mailto:help@corner.example',
              );
              if (state === 'paid')
                expect(await page.locator('#receipt').innerText()).toMatch(
                  /Two bags of house blend[^]*help@corner\.example/,
                );
              // The accent colour reaches the main buttons, with the dark text it needs to stay readable.
              expect(
                await page.evaluate(
                  "[...document.querySelectorAll('.primary')].map((e) => getComputedStyle(e).backgroundColor + ' ' + getComputedStyle(e).color).join()",
                ),
              ).toMatch(
                state === 'paid'
                  ? /^rgb\(255, 214, 10\) rgb\(17, 17, 17\)/
                  : /^(rgb\(255, 214, 10\) rgb\(17, 17, 17\),?)*$/,
              );
            }
            found.push(...(await auditPage(page, `checkout-${state}-${viewport.width}`)));
            await context.close();
          }
        } finally {
          if (late) clock.jumpTo(new Date());
        }
      }
      expect(found.join('\n')).toBe('');
    },
  );
});
