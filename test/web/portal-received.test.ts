import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { formatInvoiceNumber } from '../../src/modules/invoices/index.js';
import type {
  ReceivedTransferId,
  ReceivedTransferReason,
} from '../../src/modules/received-transfers/received-transfer.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { auditPage } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { signedInWithWorkspace, startPortalApp } from '../support/portal-browser.js';

// The real app and Chromium; the received transfers are recorded through the service as the scan
// records them. Applying one pays from the stored transfer (the chain is not asked again), so made-up
// transfers to the workspace wallet are enough.
const portal = await startPortalApp();
const browser = await launchBrowser();

const tab = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name });
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}` as `0x${string}`;

async function walletOf(workspaceId: WorkspaceId): Promise<`0x${string}`> {
  const row = await portal.database.db
    .selectFrom('workspaces')
    .select('wallet_address')
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return row.wallet_address.toLowerCase() as `0x${string}`;
}

let keys = 0;
async function openInvoice(workspaceId: WorkspaceId, amount: string): Promise<{ id: string; number: string }> {
  const { invoice } = await portal.services.invoices.create(
    workspaceId,
    { amount },
    { idempotencyKey: `received-${++keys}-${Date.now()}`, source: 'api' },
  );
  return { id: invoice.id, number: formatInvoiceNumber(invoice.number) };
}

const RECORDED_FROM = Date.now() - 3600_000;
let recorded = 0;

/** A confirmed transfer of `amount` USDC (6 decimals, as text) to the wallet, recorded as the scan would. */
async function received(
  workspaceId: WorkspaceId,
  to: `0x${string}`,
  amount: string,
  reason: ReceivedTransferReason,
  invoiceId: string | null = null,
): Promise<{ id: ReceivedTransferId; from: string }> {
  const from = hex(20);
  const record = await portal.services.receivedTransfers.record(
    workspaceId,
    {
      network: 'base-sepolia',
      txHash: hex(32),
      logIndex: 0,
      from,
      to,
      value: BigInt(Math.round(Number(amount) * 1_000_000)),
      blockNumber: 1234n,
      blockTime: new Date(),
    },
    { reason, invoiceId },
  );
  // Records made within one millisecond would list in an order of their random ids: each is a second
  // newer than the one before, so that "newest first" is the order they were made in.
  await portal.database.db
    .updateTable('received_transfers')
    .set({ created_at: new Date(RECORDED_FROM + ++recorded * 1000) })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', record!.id)
    .execute();
  return { id: record!.id, from };
}

/** The violations as one string, empty when there are none. */
const found = (lines: readonly string[]) => lines.join('\n');

/** The row of the transfer in the Received list. */
const rowOf = (page: Page, id: string) => page.locator(`#received-rows tr[data-transfer-id="${id}"]`);

it(
  'lists the transfers that paid nothing, applies one to the invoice chosen, asks before a shortfall, dismisses one, and the banner leads there',
  { timeout: 120_000 },
  async () => {
    const { context, page, problems, workspaceId } = await signedInWithWorkspace(browser, portal, {
      viewport: { width: 1280, height: 900 },
      colorScheme: 'light',
    });
    const wallet = await walletOf(workspaceId);
    const first = await openInvoice(workspaceId, '5.00');
    const second = await openInvoice(workspaceId, '5.00');
    const larger = await openInvoice(workspaceId, '12.50');
    const ambiguous = await received(workspaceId, wallet, '5.00', 'ambiguous');
    const short = await received(workspaceId, wallet, '10.00', 'amount_mismatch', larger.id);
    const stray = await received(workspaceId, wallet, '1.23', 'no_matching_invoice');
    const late = await received(workspaceId, wallet, '5.00', 'late', first.id);

    // The banner's link opens the tab, with the tab marked current.
    await page.reload();
    const issue = page.getByRole('region', { name: 'Needs your attention' }).locator('li', {
      hasText: 'A transfer paid no invoice by itself',
    });
    expect(await issue.textContent()).toContain('(4)');
    await issue.getByRole('link', { name: 'Resolve it' }).click();
    await rowOf(page, ambiguous.id).waitFor();
    expect(await tab(page, 'Received').getAttribute('aria-current')).toBe('page');
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Received transfers');

    // Newest first, each with its amount, sender, time, reason in words and transaction.
    const order = await page.locator('#received-rows tr').evaluateAll((rows) => rows.map((r) => r.dataset.transferId));
    expect(order).toEqual([late.id, stray.id, short.id, ambiguous.id]);
    const text = async (id: string) => (await rowOf(page, id).innerText()).replace(/\s+/g, ' ');
    expect(await text(ambiguous.id)).toContain('5.00 USDC');
    expect(await text(ambiguous.id)).toContain(`${ambiguous.from.slice(0, 6)}…${ambiguous.from.slice(-4)}`);
    expect(await text(ambiguous.id)).toContain('Two or more open invoices have this amount');
    expect(await text(stray.id)).toContain('No open invoice has this amount');
    expect(await text(short.id)).toContain(`Sent for ${larger.number} but the amount differs`);
    expect(await text(late.id)).toContain(`Arrived after the deadline of ${first.number}`);
    expect(await rowOf(page, ambiguous.id).locator('time').count()).toBe(1);

    // Apply the ambiguous one to the second invoice of its amount: the row turns applied and names it.
    await rowOf(page, ambiguous.id)
      .getByRole('button', { name: /^Apply to invoice/ })
      .click();
    const invoiceChoice = page.getByLabel('Invoice it pays');
    await expect.poll(() => invoiceChoice.isEnabled()).toBe(true);
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('received-invoice');
    expect(found(await auditPage(page, 'portal-received-apply'))).toBe('');
    await invoiceChoice.selectOption(second.id);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page
      .locator('#received-table + .notice', { hasText: `${second.number} is paid with this transfer.` })
      .waitFor();
    const applied = rowOf(page, ambiguous.id);
    await applied.locator('.badge', { hasText: 'applied' }).waitFor();
    expect(await applied.getByRole('link', { name: second.number }).getAttribute('href')).toBe(`#invoice/${second.id}`);
    expect(await applied.getByRole('button').count()).toBe(0);

    // The short one: the form offers the invoice it was meant for, and nothing is sent until the shortfall is accepted.
    await rowOf(page, short.id)
      .getByRole('button', { name: /^Apply to invoice/ })
      .click();
    await expect.poll(() => invoiceChoice.inputValue()).toBe(larger.id);
    const questions: string[] = [];
    page.once('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await expect.poll(() => questions.length).toBe(1);
    expect(questions[0]).toContain(`This transfer of 10.00 USDC is 2.50 USDC short of ${larger.number}`);
    expect(questions[0]).toContain('12.50 USDC');
    expect((await portal.services.receivedTransfers.get(workspaceId, short.id)).status).toBe('unmatched');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.locator('#received-table + .notice', { hasText: `${larger.number} is paid, 2.50 USDC short` }).waitFor();
    await rowOf(page, short.id).locator('.badge', { hasText: 'applied' }).waitFor();

    // Dismiss the stray one with a note: it leaves the list of those to resolve.
    await rowOf(page, stray.id)
      .getByRole('button', { name: /^Dismiss/ })
      .click();
    await page.getByLabel(/^Note/).fill('Refunded to the sender');
    expect(found(await auditPage(page, 'portal-received-dismiss'))).toBe('');
    await page.locator('#received-dismiss-form').getByRole('button', { name: 'Dismiss' }).click();
    await rowOf(page, stray.id).locator('.badge', { hasText: 'dismissed' }).waitFor();
    expect(await text(stray.id)).toContain('Refunded to the sender');
    // Each filter's list replaces the last one when it arrives: wait for the rows it must show, not for any row.
    const listed = async () =>
      page
        .locator('#received-rows tr[data-transfer-id]')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-transfer-id')));
    await page.locator('#received-filters').getByText('Dismissed').click();
    await expect.poll(listed).toEqual([stray.id]);
    await page.locator('#received-filters').getByText('Unmatched').click();
    await expect.poll(listed).toEqual([late.id]);

    // Resolved elsewhere meanwhile: the refusal is shown in the service's words and the row catches up.
    await portal.services.receivedTransfers.dismiss(workspaceId, late.id, 'Settled by phone');
    await rowOf(page, late.id)
      .getByRole('button', { name: /^Apply to invoice/ })
      .click();
    await expect.poll(() => invoiceChoice.isEnabled()).toBe(true);
    await invoiceChoice.selectOption(first.id);
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.locator('#received-table + .notice.error', { hasText: 'already dismissed' }).waitFor();
    await rowOf(page, late.id).locator('.badge', { hasText: 'dismissed' }).waitFor();
    expect(await text(late.id)).toContain('Settled by phone');
    expect(await page.locator('#received-resolve').isHidden()).toBe(true);

    // Under "Applied", each names the invoice it paid, which shows paid.
    await page.locator('#received-filters').getByText('Applied').click();
    await expect.poll(() => page.locator('#received-rows tr[data-transfer-id]').count()).toBe(2);
    await applied.getByRole('link', { name: second.number }).click();
    await page.locator('#invoice-status', { hasText: 'paid' }).waitFor();
    await tab(page, 'Invoices').click();
    await page.locator(`#invoice-rows tr[data-invoice-id="${larger.id}"] .badge`, { hasText: 'paid' }).waitFor();

    // The key form lists the permission that applying and dismissing need.
    await tab(page, 'API').click();
    await page.getByRole('checkbox', { name: /payments:write/ }).waitFor();

    // The refusal above is an expected 409.
    expect(problems.filter((problem) => !problem.includes('409'))).toEqual([]);
    await context.close();
  },
);

it(
  'fits a phone-width screen with the list and its forms, and says plainly when nothing is left to resolve',
  { timeout: 60_000 },
  async () => {
    const { context, page, problems, workspaceId } = await signedInWithWorkspace(browser, portal, {
      viewport: { width: 390, height: 900 },
      colorScheme: 'light',
    });
    await tab(page, 'Received').click();
    await page.locator('#received-list-status', { hasText: 'Nothing to resolve' }).waitFor();
    expect(await page.locator('#received-table').isHidden()).toBe(true);
    expect(found(await auditPage(page, 'portal-received-empty-390'))).toBe('');

    const wallet = await walletOf(workspaceId);
    const transfer = await received(workspaceId, wallet, '7.00', 'no_matching_invoice');
    await tab(page, 'Overview').click();
    await tab(page, 'Received').click();
    await rowOf(page, transfer.id)
      .getByRole('button', { name: /^Apply to invoice/ })
      .click();
    await page.locator('#received-invoice-hint', { hasText: 'No invoice is open' }).waitFor();
    expect(await page.getByRole('button', { name: 'Apply', exact: true }).isDisabled()).toBe(true);
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    expect(found(await auditPage(page, 'portal-received-390'))).toBe('');
    // Cancel closes the form and gives the keyboard back to the button that opened it.
    await page.getByRole('button', { name: 'Cancel' }).first().click();
    expect(await page.locator('#received-resolve').isHidden()).toBe(true);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Apply to invoice');
    expect(problems).toEqual([]);
    await context.close();
  },
);

it('shows 25 transfers at first and the older ones on "Load more"', { timeout: 60_000 }, async () => {
  const { context, page, problems, workspaceId } = await signedInWithWorkspace(browser, portal, {
    viewport: { width: 1280, height: 900 },
    colorScheme: 'light',
  });
  const wallet = await walletOf(workspaceId);
  const oldest = await received(workspaceId, wallet, '0.50', 'no_matching_invoice');
  for (let i = 1; i <= 25; i += 1) await received(workspaceId, wallet, `${i}.00`, 'no_matching_invoice');
  await tab(page, 'Received').click();
  const shown = page.locator('#received-rows tr[data-transfer-id]');
  await expect.poll(() => shown.count()).toBe(25);
  expect(await rowOf(page, oldest.id).count()).toBe(0);
  const more = page.getByRole('button', { name: 'Load more' });
  await more.click();
  await rowOf(page, oldest.id).waitFor();
  expect(await shown.count()).toBe(26);
  expect(await more.isHidden()).toBe(true);
  expect(problems).toEqual([]);
  await context.close();
});
