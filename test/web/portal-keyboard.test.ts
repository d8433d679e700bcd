import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { newWallet } from '../support/app.js';
import { launchBrowser, screenshot } from '../support/browser.js';
import { startPortalApp, watchPage } from '../support/portal-browser.js';

// The local demo: its built-in wallet signs in, so the journey needs no extension and no mouse.
const portal = await startPortalApp({
  demoWallet: { chainId: 84532, rpcUrl: 'http://127.0.0.1:9', merchant: newWallet(), buyer: newWallet() },
});
const browser = await launchBrowser();

interface Focused {
  readonly id: string;
  readonly tag: string;
  /** What a screen reader would start with: aria-label, the label of a field, or the text. */
  readonly name: string;
  /** Whether a focus indicator is drawn: an outline or a shadow, on the element or, for an input hidden under its chip, on the chip. */
  readonly ring: boolean;
}

// An expression, not a function: the test project is typed without the DOM library.
const FOCUSED = `(() => {
  const node = document.activeElement;
  if (!node || node === document.body) return null;
  const drawn = (element) => {
    const style = getComputedStyle(element);
    return (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
  };
  const shown = getComputedStyle(node).opacity === '0' ? node.nextElementSibling : node;
  const name = node.getAttribute('aria-label') || node.labels?.[0]?.textContent || node.textContent || '';
  return { id: node.id, tag: node.tagName.toLowerCase(), name: name.replace(/\\s+/g, ' ').trim(), ring: Boolean(shown && drawn(shown)) };
})()`;

const focused = (page: Page) => page.evaluate(FOCUSED) as Promise<Focused | null>;

/**
 * Presses Tab (or Shift+Tab) until the focused element is the one `wanted` picks, and resolves it.
 * Every element passed on the way must show where the focus is.
 */
async function tabTo(page: Page, wanted: (element: Focused) => boolean, what: string, key = 'Tab'): Promise<Focused> {
  const passed: string[] = [];
  for (let presses = 0; presses < 80; presses += 1) {
    await page.keyboard.press(key);
    const element = await focused(page);
    if (element && !element.ring)
      throw new Error(`${element.tag}#${element.id} "${element.name}" has no visible focus`);
    if (element && wanted(element)) return element;
    passed.push(element ? `${element.tag}#${element.id} "${element.name.slice(0, 40)}"` : '(nothing)');
  }
  throw new Error(`${what} was not reached by ${key}; passed:\n${passed.join('\n')}`);
}

it(
  'a merchant signs in, creates an invoice, copies its link and cancels it with the keyboard alone',
  { timeout: 90_000 },
  async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    const problems = watchPage(page, portal.origin);
    await page.goto(`${portal.origin}/portal`);
    const demo = 'Sign in with Demo wallet: merchant (local chain only)';
    await page.getByRole('button', { name: demo }).waitFor();

    await tabTo(page, (e) => e.name === demo, 'the demo wallet');
    await page.keyboard.press('Enter');
    // The first workspace: its form opens with the focus in its first field.
    await page.getByRole('heading', { name: 'Create a workspace' }).waitFor();
    await expect.poll(async () => (await focused(page))?.id).toBe('workspace-name-input');
    await page.keyboard.type('Corner Shop');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Corner Shop' }).waitFor();
    // The form is gone; the focus goes to the picker that now names the new workspace, not the top of the page.
    expect(await focused(page)).toMatchObject({ id: 'workspace-select', ring: true });

    await tabTo(page, (e) => e.tag === 'a' && e.name === 'Invoices', 'the Invoices tab');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused(page))?.id).toBe('invoice-list-title');
    await tabTo(page, (e) => e.id === 'invoice-amount', 'the amount field');
    await page.keyboard.type('12.50');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /INV-000001/ }).waitFor();
    // The new invoice's page takes the focus to its heading.
    await expect.poll(async () => (await focused(page))?.name).toMatch(/^INV-000001 open$/);

    const link = (await page.locator('#invoice-checkout-url').textContent()) ?? '';
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/w\/.+\/i\/inv_/);
    await tabTo(page, (e) => e.name === 'Copy', 'the Copy button of the checkout link');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await focused(page))?.name).toBe('Copied');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(link);

    const cancel = await tabTo(page, (e) => e.id === 'cancel-invoice', 'Cancel the invoice');
    expect(cancel.name).toBe('Cancel the invoice');
    // Space presses it too. Declined first: nothing happens and the focus stays on the button.
    const questions: string[] = [];
    page.once('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.dismiss();
    });
    await page.keyboard.press('Space');
    await expect.poll(() => questions.length).toBe(1);
    expect(questions[0]).toMatch(/^Cancel INV-000001 \(12\.50 USDC\)\?/);
    expect((await focused(page))?.id).toBe('cancel-invoice');
    expect(await page.locator('#invoice-status').textContent()).toBe('open');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.keyboard.press('Space');
    await page.locator('#invoice-actions + .notice', { hasText: 'INV-000001 is cancelled.' }).waitFor();
    await expect.poll(() => page.locator('#invoice-status').textContent()).toBe('cancelled');
    // The button is gone with the actions it belonged to: the focus goes to the invoice's heading, which
    // now reads its new status, rather than falling back to the top of the page.
    await expect.poll(async () => (await focused(page))?.name).toBe('INV-000001 cancelled');
    await screenshot(page, 'portal-keyboard-cancelled');
    expect(problems).toEqual([]);
    await context.close();
  },
);
