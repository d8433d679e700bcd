import { afterAll, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { signedInWithWorkspace, startPortalApp } from '../support/portal-browser.js';
const portal = await startPortalApp();
// As `npm start` serves pages: the process hears every change of an order.
const listener = portal.services.payments.orderChanges.listen(portal.database.connection, { warn() {} });
await listener.start();
afterAll(() => listener.stop());
const browser = await launchBrowser();

it('the open invoice detail shows a change made elsewhere at once, through the checkout event stream', async () => {
  const { context, page, problems, workspaceId } = await signedInWithWorkspace(browser, portal);
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Invoices' }).click();
  await page.getByLabel('Amount in USDC').fill('3');
  const streamed = page.waitForRequest((request) => request.url().endsWith('/events'));
  await page.getByRole('button', { name: 'Create invoice' }).click();
  await page.getByRole('heading', { name: /INV-000001/ }).waitFor();
  const events = new URL((await streamed).url());
  const invoiceId = events.pathname.split('/')[4]!;
  expect(events.pathname).toBe(`/w/${workspaceId}/i/${invoiceId}/events`);
  expect(await page.locator('#invoice-status').textContent()).toBe('open');

  // Cancelled by another tab of the same merchant: this page polls every 5 s, the stream tells at once.
  const cookie = (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
  const cancelled = await portal.app.inject({
    method: 'POST',
    url: `/portal/api/w/${workspaceId}/invoices/${invoiceId}/cancel`,
    headers: { cookie, origin: portal.origin },
  });
  expect(cancelled.statusCode).toBe(200);
  await page.locator('#invoice-status').getByText('cancelled').waitFor({ timeout: 1500 });
  await page.locator('#invoice-timeline [data-kind="cancelled"]').waitFor({ timeout: 1500 });
  expect(problems).toEqual([]);
  await context.close();
});
