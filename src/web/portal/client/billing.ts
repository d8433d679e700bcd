// The billing panel: the credit packages with a buy button each, the purchase being paid (purchase.ts),
// the purchases made, and the ledger.
import { ApiError, api, newIdempotencyKey, workspacePath } from './api.js';
import type { Billing, CreditPurchase, CreditPurchaseList, Ledger, Workspace } from './api-types.js';
import { badge, busy, byId, el, formatAmount, pagedList, reportError, show, timeEl } from './dom.js';
import { createPurchaseView } from './purchase.js';
import { ids } from '../portal.ids.js';

const PAGE = 25;

/** Ledger kinds (GET /billing/ledger) in words. */
type LedgerEntry = Ledger['entries'][number];
type CreditPackage = Billing['packages'][number];

const KINDS: Readonly<Record<string, string>> = {
  grant: 'New-workspace grant',
  manual_grant: 'Granted by the operator',
  purchase: 'Credit purchase',
  'invoice.created': 'Invoice created',
  'invoice.renewed': 'Invoice renewed',
  'invoice.paid': 'Invoice paid: success fee taken',
  'invoice.cancelled': 'Invoice cancelled: reserve released',
  'invoice.expired': 'Invoice expired: reserve released',
};

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function ledgerRow(entry: LedgerEntry): HTMLElement {
  const reference = entry.reference?.startsWith('inv_')
    ? el('a', { href: `#invoice/${entry.reference}` }, entry.invoiceNumber ?? 'the invoice')
    : entry.reference && el('code', {}, entry.reference);
  return el(
    'tr',
    {},
    el('td', { 'data-label': '#', class: 'num' }, String(entry.id)),
    el('td', { 'data-label': 'When' }, timeEl(entry.createdAt)),
    el(
      'td',
      { 'data-label': 'What' },
      KINDS[entry.kind] ?? entry.kind,
      entry.reason && el('span', { class: 'muted' }, ` — ${entry.reason}`),
      reference && el('span', {}, ' (', reference, ')'),
    ),
    el('td', { 'data-label': 'Change', class: 'num' }, signed(entry.amount)),
    el('td', { 'data-label': 'Reserve', class: 'num' }, entry.reserveChange === 0 ? '' : signed(entry.reserveChange)),
    el('td', { 'data-label': 'Balance after', class: 'num' }, String(entry.balanceAfter)),
  );
}

/** A row of the purchase history; its button opens the purchase (`open(id)`) to pay or follow it. */
function purchaseRow(purchase: CreditPurchase, open: (id: string) => void): HTMLElement {
  const label = purchase.status === 'open' ? 'Pay' : 'Show';
  return el(
    'tr',
    {},
    el('td', { 'data-label': 'Created' }, timeEl(purchase.createdAt)),
    el('td', { 'data-label': 'Package' }, purchase.packageId),
    el('td', { 'data-label': 'Credits', class: 'num' }, String(purchase.credits)),
    el('td', { 'data-label': 'Price', class: 'num' }, `${formatAmount(purchase.price)} USDC`),
    el('td', { 'data-label': 'Status' }, badge(purchase.status)),
    el('td', { 'data-label': 'Pay by' }, purchase.status === 'open' ? timeEl(purchase.expiresAt) : '—'),
    el(
      'td',
      { class: 'actions-cell' },
      el(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          'aria-label': `${label} purchase ${purchase.id}`,
          onclick: () => open(purchase.id),
        },
        label,
      ),
    ),
  );
}

/** `onChange()` runs when a purchase was paid or changed status (the balance and the issues may have moved). */
export function createBillingView({ onChange }: { readonly onChange: () => void }): {
  show(selected: Workspace): Promise<void>;
} {
  const packages = byId(ids.packageList);
  const unavailable = byId(ids.purchasesUnavailable);
  let workspace: Workspace | undefined;
  // One Idempotency-Key per package a click asks for: a retry after a lost answer reuses it, so it
  // cannot make a second purchase; a success starts a new one.
  const attempts = new Map<string, string>();

  const purchases = pagedList({
    rows: byId(ids.purchaseRows),
    more: byId(ids.purchaseMore, HTMLButtonElement),
    status: byId(ids.purchaseListStatus),
    empty: 'No purchases yet.',
    render: (purchase: CreditPurchase) =>
      purchaseRow(purchase, (id) => {
        if (workspace) detail.open(workspace, id).catch((error: unknown) => reportError(error, byId(ids.purchaseRows)));
      }),
    fetchPage: async (ws, cursor) => {
      const page = await api.get<CreditPurchaseList>(
        workspacePath(ws.id, 'credit-purchases', { cursor: cursor ?? undefined, limit: PAGE }),
      );
      return { items: page.purchases, nextCursor: page.nextCursor };
    },
  });
  const ledger = pagedList({
    rows: byId(ids.ledgerRows),
    more: byId(ids.ledgerMore, HTMLButtonElement),
    status: byId(ids.ledgerStatus),
    empty: 'No entries.',
    render: ledgerRow,
    fetchPage: async (ws, cursor) => {
      const page = await api.get<Ledger>(
        workspacePath(ws.id, 'billing', 'ledger', { after: cursor ?? undefined, limit: PAGE }),
      );
      return { items: page.entries, nextCursor: page.nextCursor };
    },
  });

  async function loadBalance(selected: Workspace): Promise<Billing | undefined> {
    const billing = await api.get<Billing>(workspacePath(selected.id, 'billing'));
    if (workspace !== selected) return undefined;
    byId(ids.billingTabBalance).textContent = String(billing.creditBalance);
    byId(ids.billingTabAvailable).textContent = String(billing.availableCredits);
    show(byId(ids.billingTabGrantNote), billing.creditBalance === 0 && !billing.firstWorkspaceOfWallet);
    return billing;
  }

  // A purchase that moved (processing, paid, back to open after a failure) moves the history; a paid
  // one also the balance and the ledger.
  const detail = createPurchaseView({
    onChange: (purchase) => {
      const target = workspace;
      if (target) {
        const reloads: Promise<unknown>[] = [purchases.load(target)];
        if (purchase.status === 'paid') reloads.push(loadBalance(target), ledger.load(target));
        Promise.all(reloads).catch((error: unknown) => reportError(error, byId(ids.purchaseRows)));
      }
      onChange();
    },
  });

  async function buy(button: HTMLButtonElement, creditPackage: CreditPackage): Promise<void> {
    const target = workspace;
    if (!target) return;
    await busy(button, async () => {
      try {
        const key = attempts.get(creditPackage.id) ?? newIdempotencyKey();
        attempts.set(creditPackage.id, key);
        const purchase = await api.post<CreditPurchase>(
          workspacePath(target.id, 'credit-purchases'),
          { packageId: creditPackage.id },
          { 'idempotency-key': key },
        );
        attempts.delete(creditPackage.id);
        if (target !== workspace) return;
        detail.show(target, purchase);
        await purchases.load(target);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'purchases_unavailable') return showUnavailable(error);
        reportError(error, button);
      }
    });
  }

  function showUnavailable(error: ApiError): void {
    unavailable.textContent = error.message;
    show(unavailable, true);
    for (const button of packages.querySelectorAll('button')) button.disabled = true;
  }

  function renderPackages(offered: readonly CreditPackage[]): void {
    packages.replaceChildren(
      ...offered.map((creditPackage) => {
        const button = el('button', { type: 'button', class: 'primary small' }, `Buy ${creditPackage.id}`);
        button.addEventListener('click', () => buy(button, creditPackage));
        return el(
          'li',
          { class: 'package' },
          el('strong', {}, creditPackage.id),
          el('span', {}, `${plural(creditPackage.credits, 'credit')} for ${formatAmount(creditPackage.price)} USDC`),
          button,
        );
      }),
    );
  }

  return {
    async show(selected) {
      if (selected.id !== workspace?.id) {
        detail.hide();
        show(unavailable, false);
        attempts.clear();
        purchases.reset();
        ledger.reset();
      }
      workspace = selected;
      const billing = await loadBalance(selected);
      if (!billing) return;
      renderPackages(billing.packages);
      await Promise.all([
        purchases.load(selected).catch((error) => {
          if (!(error instanceof ApiError && error.code === 'purchases_unavailable')) throw error;
          showUnavailable(error);
          byId(ids.purchaseListStatus).textContent = 'Credit purchases are not available on this service.';
        }),
        ledger.load(selected),
      ]);
    },
  };
}
