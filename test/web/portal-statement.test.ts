import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { launchBrowser, screenshot } from '../support/browser.js';
import { signedInWithWorkspace, startPortalApp } from '../support/portal-browser.js';
const portal = await startPortalApp();
const browser = await launchBrowser();

it(
  'the Statement tab shows the month, moves between months, prints on one page and downloads its lines, at 390 px',
  { timeout: 90_000 },
  async () => {
    const { context, page, problems, workspaceId } = await signedInWithWorkspace(browser, portal, {
      viewport: { width: 390, height: 844 },
      acceptDownloads: true,
    });
    await portal.services.invoices.create(
      workspaceId,
      { amount: '12.5' },
      { idempotencyKey: `statement-${Date.now()}`, source: 'api' },
    );

    await page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: 'Statement' }).click();
    const thisMonth = new Date().toISOString().slice(0, 7);
    const sheet = page.locator('#statement-sheet');
    await sheet.getByRole('heading', { name: /^Corner Shop — / }).waitFor();
    expect(await page.locator('#statement-month').inputValue()).toBe(thisMonth);
    const row = (table: string, label: string | RegExp) =>
      page
        .locator(`#statement-${table} tr`)
        .filter({ has: page.getByRole('rowheader', { name: label }) })
        .locator('td');
    expect(await row('invoices', 'Created').textContent()).toBe('1');
    expect(await row('credits', /^Opening balance/).textContent()).toBe('0');
    expect(await row('credits', 'Granted').textContent()).toBe('+100');
    expect(await row('credits', 'Spent').textContent()).toBe('−1');
    expect(await row('credits', /^Invoice creation/).textContent()).toBe('−1');
    expect(await row('credits', /^Closing balance, now/).textContent()).toBe('99');
    expect(await page.locator('#statement-partial').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Next →' }).isDisabled()).toBe(true);
    const noSidewaysScroll = async () => (await page.evaluate('document.documentElement.scrollWidth')) === 390;
    expect(await noSidewaysScroll()).toBe(true);
    await screenshot(page, 'portal-statement-390');

    // The month before: the workspace did not exist yet.
    await page.getByRole('button', { name: '← Previous' }).click();
    // Polled through a locator: a string evaluated in the page is refused by its CSP (no 'unsafe-eval').
    await expect.poll(() => page.locator('#statement-month').inputValue(), { timeout: 10_000 }).not.toBe(thisMonth);
    expect(await row('invoices', 'Created').textContent()).toBe('0');
    expect(await row('credits', /^Closing balance/).textContent()).toBe('0');
    expect(await page.locator('#statement-partial').isHidden()).toBe(true);
    expect(await page.getByRole('button', { name: 'Next →' }).isEnabled()).toBe(true);
    await page.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(() => page.locator('#statement-month').inputValue(), { timeout: 10_000 }).toBe(thisMonth);
    await row('credits', /^Closing balance, now/)
      .getByText('99')
      .waitFor();

    // The CSV holds the same lines.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`statement-${workspaceId}-${thisMonth}.csv`);
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('section,line,entries,value,unit');
    expect(lines).toContain('statement,workspace,,Corner Shop,');
    expect(lines).toContain(`statement,month,,${thisMonth},`);
    expect(lines).toContain('invoices,created,1,,invoices');
    expect(lines).toContain('credits,opening_balance,,0,credits');
    expect(lines).toContain('credits,closing_balance,,99,credits');
    // A spending kind's movement is a negative number, not a formula to neutralise.
    expect(lines).toContain('credit_movements,invoice.created,1,-1,credits');

    // On paper: the statement alone, on one page.
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('.tabs').isHidden()).toBe(true);
    expect(await page.locator('#statement-month').isHidden()).toBe(true);
    expect(await sheet.isVisible()).toBe(true);
    await screenshot(page, 'portal-statement-print');
    // Back to the page's own media: page.pdf renders print then, as a browser's Print does.
    await page.emulateMedia({ media: null });
    const pdf = await page.pdf({ format: 'A4' });
    expect(pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g)).toHaveLength(1);

    expect(problems).toEqual([]);
    await context.close();
  },
);
