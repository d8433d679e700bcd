import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { auditPage } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { signedInWithWorkspace, startPortalApp } from '../support/portal-browser.js';

const portal = await startPortalApp();
// As `npm start` serves pages: the process hears every change of an order.
const listener = portal.services.payments.orderChanges.listen(portal.database.connection, { warn() {} });
await listener.start();
afterAll(() => listener.stop());
const browser = await launchBrowser();

/** Two open invoices made through the portal API with the page's own session, as another tab would. */
async function twoInvoices(context: BrowserContext, workspaceId: string) {
  const cookie = (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
  const call = async (path: string, payload?: object) => {
    const response = await portal.app.inject({
      method: 'POST',
      url: `/portal/api/w/${workspaceId}${path}`,
      headers: { cookie, origin: portal.origin },
      ...(payload && { payload }),
    });
    expect(response.statusCode, response.body).toBeLessThan(300);
    return response.json<{ id: string; status: string }>();
  };
  const first = await call('/invoices', { amount: '4' });
  const second = await call('/invoices', { amount: '5' });
  return { first, second, cancel: (id: string) => call(`/invoices/${id}/cancel`) };
}

/** The invoice's row in the list, and the status badge in it. */
const badgeOf = (page: Page, invoiceId: string) =>
  page.locator(`#invoice-rows tr[data-invoice-id="${invoiceId}"] .badge`);

/** Every read of the list itself (GET …/invoices?…) the page makes from now on. */
function listReads(page: Page, workspaceId: string): string[] {
  const reads: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === `/portal/api/w/${workspaceId}/invoices`) reads.push(request.url());
  });
  return reads;
}

it('the invoice list shows a change made elsewhere at once, through its event stream, and stops following when left', async () => {
  const { context, page, problems, workspaceId } = await signedInWithWorkspace(browser, portal);
  const { first, second, cancel } = await twoInvoices(context, workspaceId);
  const streamed = page.waitForRequest((request) => request.url().endsWith(`/w/${workspaceId}/invoices/events`));
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Invoices' }).click();
  await streamed;
  await expect.poll(() => badgeOf(page, first.id).textContent()).toBe('open');

  // Cancelled by another tab: the list would poll no sooner than in 5 s, the stream tells at once, and
  // only the changed invoice is read again.
  const reads = listReads(page, workspaceId);
  const rowRead = page.waitForRequest(
    (request) => new URL(request.url()).pathname === `/portal/api/w/${workspaceId}/invoices/${first.id}`,
  );
  expect((await cancel(first.id)).status).toBe('cancelled');
  await badgeOf(page, first.id).getByText('cancelled').waitFor({ timeout: 1500 });
  await rowRead;
  expect(await badgeOf(page, second.id).textContent()).toBe('open');
  expect(reads).toEqual([]);
  problems.push(...(await auditPage(page, 'portal-invoices-live')));

  // Another tab of the portal: the list's stream is closed.
  const closed = page.waitForEvent('requestfailed', (request) => request.url().endsWith('/invoices/events'));
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Overview' }).click();
  await closed;
  expect(problems).toEqual([]);
  await context.close();
});

it('polls the shown invoices every 5 s where the browser has no EventSource', async () => {
  const { context, page, problems, workspaceId } = await signedInWithWorkspace(browser, portal);
  const { first, cancel } = await twoInvoices(context, workspaceId);
  await page.addInitScript('delete window.EventSource');
  await page.reload();
  await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Invoices' }).click();
  await expect.poll(() => badgeOf(page, first.id).textContent()).toBe('open');

  const reads = listReads(page, workspaceId);
  await cancel(first.id);
  await badgeOf(page, first.id).getByText('cancelled').waitFor({ timeout: 8000 });
  expect(reads.length).toBeGreaterThan(0);
  expect(problems).toEqual([]);
  await context.close();
});
