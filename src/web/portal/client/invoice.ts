// One invoice: its facts, links to copy, cancel and renew, the receipt once paid, and the timeline.
import { ApiError, api, workspacePath } from './api.js';
import type { Invoice, Receipt, Timeline, TimelineRecord, Workspace } from './api-types.js';
import {
  attemptError,
  badge,
  busy,
  byId,
  copyFrom,
  el,
  fillFacts,
  formatAmount,
  formatTime,
  notify,
  reportError,
  show,
  timeEl,
} from './dom.js';
import { ids } from '../portal.ids.js';

/** Timeline kinds (GET …/timeline) in words; `record` adds the details that kind carries. */
const KINDS: Readonly<Record<TimelineRecord['kind'], (record: TimelineRecord) => string>> = {
  created: () => 'Created',
  scheduled: () => 'Created by an automation',
  payment_submitted: () => 'Payment found, verifying',
  verification_pending: () => 'Verifying the payment',
  payment_confirmed: () => 'Payment confirmed on-chain',
  paid: () => 'Paid',
  payment_failed: (r) => `Payment failed${r.failureReason ? `: ${r.failureReason.replaceAll('_', ' ')}` : ''}`,
  overpayment_received: () => 'A second payment arrived after the invoice was settled: return it to the payer',
  payment_reverted: () =>
    'Payment reverted: a reorganisation took it out of the chain; do not ship, the invoice is payable again',
  reopened: () => 'Open again for payment',
  expired: () => 'Expired',
  cancelled: () => 'Cancelled',
  renewed: (r) => `Link renewed (version ${r.linkVersion})`,
  webhook_attempt: (r) =>
    `Webhook attempt ${r.attempt} for event ${r.eventId}: ${r.error === null ? `acknowledged (${r.statusCode})` : attemptError(r)}`,
};

const CHANGEABLE: ReadonlySet<string> = new Set(['open', 'expired']);
/**
 * Statuses that can change by themselves (a buyer pays, a payment confirms): the detail follows the
 * invoice's event stream, and polls this often where it cannot.
 */
const REFRESH_MS: Readonly<Partial<Record<Invoice['status'], number>>> = { open: 5000, processing: 2000 };

/** `onChange()` runs after a cancel or a renewal (credits and issues may have moved). */
export function createInvoiceView({ onChange }: { readonly onChange: () => void }): {
  show(selected: Workspace, invoiceId: string): Promise<void>;
} {
  const card = byId(ids.invoiceDetail);
  let workspace: Workspace;
  /** The invoice shown; only its id until the first answer arrives. */
  let invoice: Invoice | { readonly id: string; readonly status?: undefined };
  let generation = 0;
  let refresh: number | undefined;
  /** The open invoice's event stream while it works. */
  let live: { readonly id: string; readonly stream: EventSource } | undefined;
  /** The invoice whose stream failed or ended: it is polled from then on. */
  let unfollowable: string | undefined;
  /** The invoice and link version whose window the renewal select was last set to. */
  let renewalWindowOf: string | undefined;

  for (const button of card.querySelectorAll<HTMLElement>('[data-copy-from]'))
    button.addEventListener('click', () => copyFrom(byId(button.dataset.copyFrom ?? ''), button));

  function renderInvoice(invoice: Invoice): void {
    byId(ids.invoiceNumber).textContent = invoice.number;
    byId(ids.invoiceStatus).replaceWith(Object.assign(badge(invoice.status), { id: ids.invoiceStatus }));
    fillFacts(byId(ids.invoiceFacts), [
      ['Amount', `${formatAmount(invoice.amount)} USDC`],
      ['Order reference', invoice.externalId ?? undefined],
      ['Description', invoice.description === null ? undefined : el('span', { class: 'text' }, invoice.description)],
      [
        'Automation',
        invoice.automationId
          ? el(
              'span',
              {},
              el('a', { href: `#automation/${invoice.automationId}` }, 'its automation'),
              `, occurrence ${invoice.occurrence}`,
            )
          : undefined,
      ],
      ['Network', invoice.network ?? 'The buyer chooses'],
      ['Created', timeEl(invoice.createdAt)],
      ['Payment deadline', timeEl(invoice.expiresAt)],
      ['Paid', invoice.paidAt ? timeEl(invoice.paidAt) : undefined],
      ['Cancelled', invoice.cancelledAt ? timeEl(invoice.cancelledAt) : undefined],
      ['Receiving wallet', el('code', {}, invoice.payTo)],
      ['Link version', String(invoice.linkVersion)],
      // Past the invoice retention the timeline below is only what is left: say so beside the facts that remain.
      ['Archived', invoice.archived ? 'Older than the invoice retention: its lifecycle records are gone' : undefined],
    ]);
    byId(ids.invoiceCheckoutUrl).textContent = invoice.checkoutUrl;
    byId(ids.invoiceCheckoutOpen, HTMLAnchorElement).href = invoice.checkoutUrl;
    byId(ids.invoiceUrl).textContent = invoice.url;
    show(byId(ids.invoiceActions), CHANGEABLE.has(invoice.status));
    // A live reload must not undo the owner's choice of window: the select follows the invoice only
    // when another invoice or link version is shown.
    const windowOf = `${invoice.id}@${invoice.linkVersion}`;
    if (renewalWindowOf !== windowOf) {
      renewalWindowOf = windowOf;
      byId(ids.renewExpires, HTMLSelectElement).value = String(invoice.expiresIn);
    }
  }

  function renderTimeline(timeline: Timeline): void {
    byId(ids.invoiceTimeline).replaceChildren(
      ...timeline.records.map((record) =>
        el(
          'li',
          { 'data-kind': record.kind },
          timeEl(record.at),
          ' ',
          el('span', {}, (KINDS[record.kind] ?? (() => record.kind))(record)),
        ),
      ),
    );
    show(byId(ids.invoiceTimelineNote), timeline.truncated);
  }

  function renderReceipt(receipt: Receipt | undefined): void {
    show(byId(ids.invoiceReceipt), Boolean(receipt));
    if (!receipt) return;
    fillFacts(byId(ids.receiptFacts), [
      ['Amount', `${formatAmount(receipt.amount)} USDC on ${receipt.network}`],
      ['Paid', timeEl(receipt.paidAt)],
      ['Payer', receipt.payer ? el('code', {}, receipt.payer) : undefined],
      ['Transaction', el('code', {}, receipt.transactionHash)],
      ['Block', receipt.blockNumber],
      ['Payment', el('code', {}, receipt.paymentIntentId)],
    ]);
  }

  async function load(): Promise<void> {
    const mine = ++generation;
    const path = (...rest: string[]) => workspacePath(workspace.id, 'invoices', invoice.id, ...rest);
    const [fresh, timeline] = await Promise.all([api.get<Invoice>(path()), api.get<Timeline>(path('timeline'))]);
    // A receipt exists only once paid; asking earlier answers 409 invoice_not_paid.
    const receipt =
      fresh.status === 'paid'
        ? await api
            .get<Receipt>(path('receipt'))
            .catch((error: unknown) =>
              error instanceof ApiError && error.status === 409 ? undefined : Promise.reject(error),
            )
        : undefined;
    if (mine !== generation) return;
    invoice = fresh;
    renderInvoice(fresh);
    renderTimeline(timeline);
    renderReceipt(receipt);
    scheduleRefresh(mine);
  }

  /** Reloads while the invoice may still change and this detail is on screen; any navigation ends it. */
  function scheduleRefresh(mine: number): void {
    window.clearTimeout(refresh);
    const delay = invoice.status && REFRESH_MS[invoice.status];
    if (delay === undefined) return stopFollowing();
    if (follow()) return;
    refresh = window.setTimeout(() => {
      if (mine !== generation || card.offsetParent === null) return;
      // A failed refresh is silent: the next navigation or action loads again and reports.
      load().catch(() => {});
    }, delay);
  }

  /**
   * Reloads on every change the checkout event stream announces. It is the public one: it carries only
   * what the invoice's checkout link shows anyone holding it, and each change is then read through this
   * session's own API. Returns false where there is no stream (then the caller polls).
   */
  function follow(): boolean {
    if (live?.id === invoice.id) return true;
    stopFollowing();
    if (!window.EventSource || unfollowable === invoice.id) return false;
    const id = invoice.id;
    const stream = new window.EventSource(`/w/${encodeURIComponent(workspace.id)}/i/${encodeURIComponent(id)}/events`);
    live = { id, stream };
    stream.addEventListener('state', () => {
      if (card.offsetParent === null) return stopFollowing();
      load().catch(() => {}); // a failed reload is silent, as a failed poll is
    });
    stream.addEventListener('error', () => {
      unfollowable = id; // refused, broken or ended: poll instead
      stopFollowing();
      if (invoice.id === id) scheduleRefresh(generation);
    });
    return true;
  }

  function stopFollowing(): void {
    live?.stream.close();
    live = undefined;
  }

  // Leaving the detail ends its stream.
  window.addEventListener('hashchange', () => live && !window.location.hash.includes(live.id) && stopFollowing());

  async function act(
    button: HTMLButtonElement,
    shown: Invoice,
    verb: 'cancel' | 'renew',
    body?: { expiresIn: number },
  ): Promise<void> {
    await busy(button, async () => {
      try {
        const answer = await api.post<Invoice>(workspacePath(workspace.id, 'invoices', shown.id, verb), body);
        notify(
          verb === 'cancel'
            ? `${shown.number} is cancelled.`
            : `${shown.number} is renewed until ${formatTime(answer.expiresAt)}; the payment link is unchanged.`,
          'success',
          { near: button },
        );
        onChange();
        await load();
        // A cancel hides the actions, and with them the focused button: the heading, which now says
        // the new status, takes the focus rather than the top of the page.
        const heading = byId(ids.invoiceNumber).parentElement;
        if (button.offsetParent === null && heading) {
          heading.tabIndex = -1;
          heading.focus();
        }
      } catch (error) {
        reportError(error, button);
      }
    });
  }

  /** The invoice on screen, once loaded: the actions are shown only then. */
  const loaded = (): Invoice | undefined => ('number' in invoice ? invoice : undefined);

  const cancelButton = byId(ids.cancelInvoice, HTMLButtonElement);
  cancelButton.addEventListener('click', () => {
    const shown = loaded();
    if (!shown) return;
    const question = `Cancel ${shown.number} (${formatAmount(shown.amount)} USDC)?\n\nIts checkout link stops accepting payments. This cannot be undone.`;
    if (window.confirm(question)) act(cancelButton, shown, 'cancel');
  });
  // Renewing spends credits (the window's tariff), so it asks first, like cancelling.
  const renewButton = byId(ids.renewInvoice, HTMLButtonElement);
  renewButton.addEventListener('click', () => {
    const shown = loaded();
    const choice = byId(ids.renewExpires, HTMLSelectElement).selectedOptions[0];
    if (!shown || !choice) return;
    const credits = Number(choice.dataset.credits);
    const question = `Renew ${shown.number} for ${choice.dataset.label}?\n\nThis costs ${credits} credit${credits === 1 ? '' : 's'}. The payment link stays the same.`;
    if (window.confirm(question)) act(renewButton, shown, 'renew', { expiresIn: Number(choice.value) });
  });

  return {
    async show(selected, invoiceId) {
      workspace = selected;
      invoice = { id: invoiceId };
      byId(ids.invoiceNumber).textContent = 'Loading…';
      for (const id of [ids.invoiceFacts, ids.invoiceTimeline]) byId(id).replaceChildren();
      show(byId(ids.invoiceActions), false);
      show(byId(ids.invoiceReceipt), false);
      await load();
    },
  };
}
