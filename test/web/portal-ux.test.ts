import type { BrowserContext, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { injectTestWallet, launchBrowser } from '../support/browser.js';
import { newWallet } from '../support/app.js';
import { startPortalApp, watchPage } from '../support/portal-browser.js';

// The wallet signs in only; it sends no transaction, so its RPC address is never used.
const UNUSED_RPC = 'http://127.0.0.1:9';
const portal = await startPortalApp();
const browser = await launchBrowser();

const tab = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name });

/** A signed-in page with a fresh workspace, at `width` × 900. */
async function signedIn(width: number): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  await injectTestWallet(context, newWallet(), UNUSED_RPC, 84532);
  const page = await context.newPage();
  const problems = watchPage(page, portal.origin);
  await page.goto(`${portal.origin}/portal`);
  await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
  const create = page.locator('#workspace-create');
  await create.getByLabel('Name').fill('Corner Shop');
  await create.getByRole('button', { name: 'Create workspace' }).click();
  await page.getByRole('heading', { name: 'Corner Shop' }).waitFor();
  return { context, page, problems };
}

for (const width of [390, 1280]) {
  it(`no portal tab scrolls sideways at ${width} px`, { timeout: 60_000 }, async () => {
    const { context, page, problems } = await signedIn(width);
    const names = await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link').allTextContents();
    expect(names.length).toBeGreaterThan(5);
    const wide: string[] = [];
    for (const name of names) {
      await tab(page, name).click();
      await page.waitForTimeout(300);
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      if (scrollWidth !== width) wide.push(`${name}: ${scrollWidth}`);
    }
    expect(wide).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
}
