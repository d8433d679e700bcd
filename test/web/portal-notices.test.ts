import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { MAX_ACTIVE_KEYS } from '../../src/modules/api-keys/index.js';
import { launchBrowser, screenshot } from '../support/browser.js';
import { signedInWithWorkspace, startPortalApp } from '../support/portal-browser.js';

const portal = await startPortalApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
const browser = await launchBrowser();

const tabs = (page: Page) => page.getByRole('navigation', { name: 'Workspace' }).getByRole('link');
const tab = (page: Page, name: string) => tabs(page).filter({ hasText: name });
/** Every notice the page shows, wherever it is. */
const shownNotices = (page: Page) => page.locator('.notice:visible');

it(
  'a notice appears beside the control that caused it, replaces the one before, and a success goes away on its own',
  { timeout: 120_000 },
  async () => {
    const { context, page, problems, workspaceId } = await signedInWithWorkspace(browser, portal, {
      viewport: { width: 1280, height: 900 },
    });
    // Keys are created until the service refuses one more (its hourly or its active limit): the
    // page's attempt is then refused with the same words.
    let refusal = '';
    for (let i = 0; refusal === '' && i <= MAX_ACTIVE_KEYS; i += 1)
      await portal.services.apiKeys
        .create(workspaceId, { name: `server ${i}`, permissions: ['invoices:read'] })
        .catch((error: Error) => (refusal = error.message));
    expect(refusal).not.toBe('');
    await tab(page, 'API').click();
    await page.locator('#keys-body tr').first().waitFor();

    // Refused by the service: said inside the key form, as an alert, and nowhere else.
    const keyForm = page.locator('#key-form');
    await keyForm.getByLabel('Name').fill('one too many');
    await keyForm.getByRole('button', { name: 'Read invoices' }).click();
    await keyForm.getByRole('button', { name: 'Create key' }).click();
    const refused = keyForm.locator('.notice.error[role="alert"]', { hasText: refusal });
    await refused.waitFor();
    await screenshot(page, 'portal-notice-in-form');
    expect(await page.locator('#notice').isHidden()).toBe(true);
    expect(await shownNotices(page).count()).toBe(1);

    // A later action elsewhere on the page: its notice beside it takes the place of the refusal.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('#keys-body tr').first().getByRole('button', { name: 'Revoke' }).click();
    const revoked = page.locator('#keys .table-wrap + .notice.success[role="status"]', { hasText: 'revoked' });
    await revoked.waitFor();
    await refused.waitFor({ state: 'detached' });
    expect(await shownNotices(page).count()).toBe(1);

    const webhookForm = page.locator('#webhook-form');
    await webhookForm.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hooks');
    await webhookForm.getByRole('button', { name: 'Save endpoint' }).click();
    const saved = webhookForm.locator('.notice.success[role="status"]', { hasText: 'Endpoint saved' });
    await saved.waitFor();
    await revoked.waitFor({ state: 'detached' });
    expect(await shownNotices(page).count()).toBe(1);
    // Nobody dismisses a success: it leaves by itself.
    await saved.waitFor({ state: 'detached', timeout: 30_000 });
    expect(await shownNotices(page).count()).toBe(0);

    // What was said on a tab is stale once another tab is opened.
    await keyForm.getByLabel('Name').fill('');
    await keyForm.getByRole('button', { name: 'Create key' }).click();
    const unnamed = keyForm.locator('.notice.error', { hasText: 'Give the key a name' });
    await unnamed.waitFor();
    await tab(page, 'Invoices').click();
    await unnamed.waitFor({ state: 'detached' });
    await tab(page, 'API').click();
    await keyForm.waitFor();
    expect(await shownNotices(page).count()).toBe(0);

    // The one refusal the test asked for, as the browser logs every answer of 4xx.
    expect(problems).toEqual([expect.stringMatching(/status of 4\d\d .*\/keys\)$/)]);
    await context.close();
  },
);

it(
  'at 390 px every tab is on screen, whole, and opens its panel, without sideways scrolling',
  { timeout: 90_000 },
  async () => {
    const { context, page, problems } = await signedInWithWorkspace(browser, portal, {
      viewport: { width: 390, height: 844 },
    });
    await tab(page, 'Overview').waitFor();
    await screenshot(page, 'portal-tabs-390');
    const links = await tabs(page).all();
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      const box = await link.boundingBox();
      const name = await link.textContent();
      expect(box, `${name} is laid out`).not.toBeNull();
      expect(box!.x, `${name} starts on screen`).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, `${name} ends on screen`).toBeLessThanOrEqual(390);
      await link.click();
      await expect.poll(() => link.getAttribute('aria-current')).toBe('page');
      const scroll = (await page.evaluate(
        '({ width: document.scrollingElement.scrollWidth, client: document.scrollingElement.clientWidth })',
      )) as { width: number; client: number };
      expect(scroll.width, `no sideways scroll on ${name}`).toBeLessThanOrEqual(scroll.client);
    }
    expect(problems).toEqual([]);
    await context.close();
  },
);
