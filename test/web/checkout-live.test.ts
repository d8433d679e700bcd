import { describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { createTestChain } from '../support/chain.js';
import { fundGas, transfer } from '../support/checkout.js';
import { checkoutShop, recordStatuses } from '../support/checkout-browser.js';
import { startPayingApp } from '../support/paying-app.js';

// As `npm start` serves pages: the process hears every change of an order, so the page can follow it live.
const chain = await createTestChain();
const paying = await startPayingApp(chain, { orderChanges: true });
const browser = await launchBrowser();
const shop = await checkoutShop(paying);

describe('the checkout page, live', () => {
  it('shows paid within a second of the service recording it, through its event stream and without polling', async () => {
    const invoice = await shop.invoice({ amount: '2.25' });
    const payer = await chain.payer(5_000_000n);
    await fundGas(chain.rpcUrl, payer.address);
    const page = await (await browser.newContext()).newPage();
    const asked: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.resourceType() !== 'document' && url.pathname.startsWith(invoice.path))
        asked.push(`${request.method()} ${url.pathname.slice(invoice.path.length) || '/'}`);
    });
    await page.goto(invoice.link);
    const statuses = await recordStatuses(page);
    // When the page first shows paid, by the wall clock the service records changes with.
    await page.evaluate(`(() => {
      const badge = document.getElementById('status');
      new MutationObserver(() => {
        if (badge.dataset.status === 'paid') window.__paidShownAt ??= Date.now();
      }).observe(badge, { attributes: true, attributeFilter: ['data-status'] });
    })()`);

    const sent = await transfer(chain.rpcUrl, payer, shop.wallet.address, 2_250_000n);
    await page.locator('#tx-hash').fill(sent.hash);
    await page.getByRole('button', { name: 'Submit transaction' }).click();
    await page.locator('#notice-paid').waitFor({ timeout: 30_000 });

    // updated_at is the service's clock at the transition to paid (paid_at is the block's time).
    const { updated_at: recordedAt } = await paying.database.db
      .selectFrom('invoices')
      .select('updated_at')
      .where('id', '=', invoice.id)
      .executeTakeFirstOrThrow();
    const shownAt = (await page.evaluate('window.__paidShownAt')) as number;
    expect(shownAt - new Date(recordedAt).getTime()).toBeLessThan(1000);
    // Found with its one confirmation already: recorded paid at once, and a hash never shows processing before.
    expect(await statuses()).toEqual(['open', 'paid']);
    // The stream brought every change: the details were never polled, only the hash was posted.
    expect(asked).toEqual(['GET /events', 'POST /transactions']);
    await page.context().close();
  });
});
