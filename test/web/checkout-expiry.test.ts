import type { BrowserContext } from 'playwright-core';
import { expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { createTestChain } from '../support/chain.js';
import {
  OffsetClock,
  RETURN_ORIGIN,
  checkoutShop,
  recordStatuses,
  startCheckoutApp,
} from '../support/checkout-browser.js';

// The server runs on the wall clock plus an offset, so a test can stand five seconds before an
// invoice's one-hour deadline and watch the page count down in real time.
const clock = new OffsetClock();
const chain = await createTestChain();
const paying = await startCheckoutApp(chain, { clock });
const browser = await launchBrowser();
const shop = await checkoutShop(paying);

/** A context where the merchant's site answers locally: following "Back to merchant" reaches nothing outside. */
async function contextWithMerchantSite(): Promise<BrowserContext> {
  const context = await browser.newContext();
  await context.route(`${RETURN_ORIGIN}/**`, (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Shop</title>' }),
  );
  return context;
}

const storedStatus = async (invoiceId: string) =>
  (
    await paying.database.db
      .selectFrom('invoices')
      .select('status')
      .where('id', '=', invoiceId)
      .executeTakeFirstOrThrow()
  ).status;

it('"Back to merchant" on an open invoice goes to the cancel URL as given and cancels nothing', async () => {
  const cancelUrl = `${RETURN_ORIGIN}/cart?order=42`;
  const invoice = await shop.invoice({ amount: '5', cancelUrl, successUrl: `${RETURN_ORIGIN}/thanks` });
  const context = await contextWithMerchantSite();
  const page = await context.newPage();
  await page.goto(invoice.link);
  await page.locator('#tx-form').waitFor();
  expect(await page.locator('#back-link').getAttribute('href')).toBe(cancelUrl);

  await page.getByRole('link', { name: 'Back to merchant' }).click();
  await page.waitForURL(cancelUrl);
  expect(page.url()).toBe(cancelUrl); // nothing appended
  expect(await shop.status(invoice.id)).toBe('open');
  await context.close();
});

it('counts down to zero, then shows expired without a reload or a redirect; "Back to merchant" cancels nothing', async () => {
  const cancelUrl = `${RETURN_ORIGIN}/cart`;
  const invoice = await shop.invoice({ amount: '5', cancelUrl });
  const { expiresAt } = (
    await paying.app.inject({ method: 'GET', url: invoice.path, headers: { accept: 'application/json' } })
  ).json<{ expiresAt: string }>();
  const context = await contextWithMerchantSite();
  const page = await context.newPage();
  // Five seconds are ample for the page to load and start counting, even on a busy machine.
  clock.jumpTo(new Date(Date.parse(expiresAt) - 5000));
  await page.goto(invoice.link);
  expect(await page.locator('#countdown').textContent()).toMatch(/^0:0[1-5]$/);
  const statuses = await recordStatuses(page);
  // When the timer ends the page asks the server at once.
  const asked = page.waitForResponse(
    (response) => response.url() === invoice.link && response.request().headers().accept === 'application/json',
  );

  await page.locator('#notice-expired').waitFor({ timeout: 10_000 });
  expect(await page.locator('#countdown').textContent()).toBe('0:00');
  expect(await statuses()).toEqual(['open', 'expired']);
  expect(await page.locator('#status').textContent()).toBe('Expired');
  expect(await page.locator('#pay').isVisible()).toBe(false);
  // The server agrees (it enforces the deadline), and the page stays where it is.
  expect(await (await asked).json()).toMatchObject({ status: 'expired' });
  expect(await page.locator('#status').textContent()).toBe('Expired');
  expect(page.url()).toBe(invoice.link);

  await page.getByRole('link', { name: 'Back to merchant' }).click();
  await page.waitForURL(cancelUrl);
  expect(page.url()).toBe(cancelUrl);
  expect(await shop.status(invoice.id)).toBe('expired');
  expect(await storedStatus(invoice.id)).toBe('open'); // nothing was written: not cancelled, only past its deadline
  await context.close();
});
