import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';
import { auditPage } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';

const { app } = await createTestApp();
await app.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const browser = await launchBrowser();

const VIEWPORTS = [
  ['phone', { width: 390, height: 844 }],
  ['desktop', { width: 1280, height: 800 }],
] as const;

describe('/docs in a browser', () => {
  // axe reads every element of a page, and a section page has thousands: one test per page keeps each
  // within its time limit on a slow machine.
  it.each([
    ['overview', '/docs'],
    ['invoices', '/docs/invoices'],
    ['portal', '/docs/portal'],
    ['guide-deploy', '/docs/guides/deploy'],
  ] as const)(
    'fits a phone and a desktop screen without sideways scrolling and passes axe: %s (screenshots in test-results/)',
    async (name, path) => {
      for (const [device, viewport] of VIEWPORTS) {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text());
        });
        page.on('pageerror', (error) => problems.push(error.message));
        await page.goto(`${base}${path}`);
        // The copy buttons come from the page's script: it ran under the page's CSP.
        if (!['overview', 'guide-deploy'].includes(name)) await page.locator('button.copy').first().waitFor();
        problems.push(...(await auditPage(page, `docs-${name}-${device}`)));
        expect(problems).toEqual([]);
        await context.close();
      }
    },
    120_000,
  );

  it('switches samples with CSS alone and reads without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}/docs/invoices#postInvoices`);
    const samples = page.locator('#postInvoices .sample');
    expect(await samples.nth(0).isVisible()).toBe(true);
    expect(await samples.nth(1).isVisible()).toBe(false);
    await page.locator('label[for="sample-postInvoices-ts"]').click();
    expect(await samples.nth(0).isVisible()).toBe(false);
    expect(await samples.nth(1).isVisible()).toBe(true);
    expect(await samples.nth(1).textContent()).toContain("client.POST('/invoices'");
    // Without the script there is nothing to filter with, so the box stays hidden; the sidebar still links.
    expect(await page.locator('#filter').isVisible()).toBe(false);
    expect(await page.locator('#nav a[href="/docs/billing"]').count()).toBe(1);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await context.close();
  });

  it('filters the operations of the sidebar as one types', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${base}/docs`);
    await page.locator('#filter').fill('renew the payment');
    const visible = page.locator('#nav li:visible');
    await expect.poll(() => visible.count()).toBeGreaterThan(0);
    // An operation is found by its path, its summary or the words of its description.
    for (const item of await visible.all()) {
      const words = `${await item.textContent()} ${await item.locator('a').getAttribute('data-words')}`;
      expect(words.toLowerCase()).toContain('renew the payment');
    }
    await page.locator('#filter').fill('');
    await expect.poll(() => page.locator('#nav details[open]').count()).toBe(0);
    await context.close();
  });

  it('finds words of the descriptions, and says when no operation has them', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${base}/docs`);
    const visible = page.locator('#nav li:visible');
    for (const word of ['signature', 'client', 'webhook']) {
      await page.locator('#filter').fill(word);
      await expect.poll(() => visible.count(), { message: word }).toBeGreaterThan(0);
      expect(await page.locator('#filter-none').isVisible()).toBe(false);
    }
    await page.locator('#filter').fill('no such word anywhere');
    await expect.poll(() => visible.count()).toBe(0);
    expect(await page.locator('#filter-none').isVisible()).toBe(true);
    await context.close();
  });

  it('gets a merchant started: a key, an invoice, the checkout link, a webhook or the feed, the receipt', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}/docs#getting-started`);
    const steps = await page.locator('#getting-started ol > li').allInnerTexts();
    expect(steps.map((step) => step.split('.')[0])).toEqual([
      'Get an API key',
      'Create an invoice (Invoices)',
      'Send the buyer the checkoutUrl',
      'Learn that it is paid, from a webhook or from the change feed',
      'Give the receipt',
    ]);
    const text = steps.join('\n');
    for (const expected of ['createClient', 'verifyWebhook', 'client.changes', 'npm pack', 'Idempotency-Key'])
      expect(text).toContain(expected);
    expect(text).not.toContain('`');
    expect(await page.locator('#getting-started a[href="/docs/webhooks"]').count()).toBe(1);
    await context.close();
  });

  it('sends an anchor of the one-page reference to the page that now holds it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/docs#get-w-workspaceid-v1-billing`);
    await page.waitForURL(`${base}/docs/billing#getBilling`);
    await page.goto(`${base}/docs#tag-invoice-batches`);
    await page.waitForURL(`${base}/docs/invoice-batches`);
    await context.close();
  });
});
