// One credit purchase in the billing tab: its facts, paying it from a browser wallet (an EIP-3009
// authorization the service settles), what those paying another way need, and following it to paid.
import { api, workspacePath } from './api.js';
import type { CreditPurchase, Workspace } from './api-types.js';
import { badge, busy, byId, copyFrom, el, field, fillFacts, formError, formatAmount, show, timeEl } from './dom.js';
import { type Wallet, listWallets, onWalletsChanged, signPurchasePayment } from './wallet.js';
import { ids } from '../portal.ids.js';

/** What a failed payment leaves: the service's refusal (`reason`), a wallet's sentence, or anything thrown. */
type Failure =
  { readonly reason?: unknown; readonly message?: unknown; readonly sessionLost?: unknown } | null | undefined;

/** While a payment is being verified the purchase is read again this often, until it is settled. */
const FOLLOW_MS = 1000;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const words = (code: string) => code.replaceAll('_', ' ');
/** Why the service refused a signed payment, in words (the API's `reason`). */
const REFUSALS: Readonly<Record<string, string>> = {
  insufficient_balance: 'the wallet did not hold enough USDC.',
  expired: 'the signature expired before it could be settled. Pay again.',
  invalid_signature: 'the signature did not match the payment. Pay again.',
  already_used: 'this signature was already used. Pay again.',
  settlement_failed: 'the transfer would fail on the network.',
};
/** What a failed payment attempt says: a refusal in words, else the message of the wallet or the service. */
const payFailure = (error: unknown): string => {
  const failure = error as Failure;
  const refusal = REFUSALS[String(failure?.reason)];
  return refusal ? `This payment was not accepted: ${refusal}` : String(failure?.message ?? error);
};
/** Thrown when another purchase (or none) was shown meanwhile: the answer is for one no longer on screen. */
const STALE = new Error('Another purchase is shown.');
/** A payment still being settled or looked for: the purchase may change by itself. */
const pending = (purchase: CreditPurchase): boolean =>
  purchase.status === 'processing' || purchase.lastPayment?.status === 'processing';

function stateText(purchase: CreditPurchase): string {
  const failed = purchase.lastPayment?.status === 'failed' ? purchase.lastPayment : undefined;
  switch (purchase.status) {
    case 'paid':
      return `Paid: ${plural(purchase.credits, 'credit')} added to the balance.`;
    case 'processing':
      return 'The payment is being settled and confirmed on-chain. Do not pay again.';
    case 'expired':
      return 'This purchase expired unpaid. Buy the package again to pay for it.';
    default:
      if (purchase.lastPayment?.status === 'processing')
        return 'A submitted transaction is being looked for on the network.';
      return failed
        ? `The last payment failed (${words(failed.failureReason ?? 'failed')}); the purchase can still be paid.`
        : 'Waiting for payment.';
  }
}

/** `onChange(purchase)` runs when a purchase's status changed here (paid: the credits are in). */
export function createPurchaseView({ onChange }: { readonly onChange: (purchase: CreditPurchase) => void }): {
  show(ws: Workspace, selected: CreditPurchase): void;
  open(ws: Workspace, purchaseId: string): Promise<void>;
  hide(): void;
} {
  const card = byId(ids.purchaseDetail);
  const status = byId(ids.purchaseStatus);
  const walletList = byId(ids.purchaseWallets);
  const stepLine = byId(ids.purchasePayStep);
  const payError = byId(ids.purchasePayError);
  const txForm = byId(ids.purchaseTxForm, HTMLFormElement);
  let workspace: Workspace;
  let purchase: CreditPurchase;
  // Bumped whenever another purchase (or none) is shown, so answers and timers for the last one are dropped.
  let generation = 0;
  let timer: number | undefined;
  let paying = false;

  const path = (...rest: string[]) => workspacePath(workspace.id, 'credit-purchases', purchase.id, ...rest);
  const step = (text: string | undefined) => (stepLine.textContent = text ?? '');
  function error(message: string | undefined): void {
    payError.textContent = message ?? '';
    show(payError, Boolean(message));
  }

  function copyable(text: string): Node[] {
    const code = el('code', {}, text);
    const button = el('button', { type: 'button', class: 'secondary small' }, 'Copy');
    button.addEventListener('click', () => copyFrom(code, button));
    return [code, button];
  }

  function renderWallets(): void {
    const wallets = listWallets();
    walletList.replaceChildren(
      ...wallets.map((wallet) => {
        const button = el(
          'button',
          { type: 'button', class: 'primary', disabled: paying },
          wallet.icon ? el('img', { class: 'wallet-icon', src: wallet.icon, alt: '' }) : undefined,
          el('span', {}, `Pay with ${wallet.name ?? 'your browser wallet'}`),
        );
        button.addEventListener('click', () => pay(wallet, button));
        return button;
      }),
    );
    show(byId(ids.purchaseNoWallet), wallets.length === 0);
  }

  function render(): void {
    const open = purchase.status === 'open';
    status.textContent = purchase.status;
    status.className = `badge ${purchase.status}`;
    byId(ids.purchaseState).textContent = stateText(purchase);
    fillFacts(byId(ids.purchaseFacts), [
      ['Package', `${purchase.packageId}: ${plural(purchase.credits, 'credit')}`],
      ['Price', `${formatAmount(purchase.price)} USDC`],
      ['Pay to', el('code', {}, purchase.recipient)],
      ['Pay by', purchase.status === 'paid' ? undefined : timeEl(purchase.expiresAt)],
      ['Paid', purchase.paidAt ? timeEl(purchase.paidAt) : undefined],
      ['Purchase id', el('code', {}, purchase.id)],
    ]);
    const last = purchase.lastPayment;
    show(byId(ids.purchasePayment), Boolean(last));
    if (last)
      fillFacts(byId(ids.purchasePaymentFacts), [
        ['Status', [badge(last.status), last.failureReason ? ` ${words(last.failureReason)}` : '']],
        ['Method', last.method === 'authorization' ? 'Signed authorization (gasless)' : 'Submitted transaction'],
        ['Network', last.network],
        ['Transaction', last.transactionHash ? el('code', { id: 'purchase-tx' }, last.transactionHash) : undefined],
        ['Submitted', timeEl(last.submittedAt)],
        ['Finished', last.finishedAt ? timeEl(last.finishedAt) : undefined],
      ]);
    // The payment details exist only while open; a purchase being paid takes no second payment.
    const networks = purchase.payment.networks;
    const payable = open && networks.length > 0;
    show(byId(ids.purchasePay), payable);
    show(byId(ids.purchaseOtherWays), payable);
    if (!payable) return;
    fillFacts(byId(ids.purchaseLinks), [
      ['Payment URL (x402 clients)', copyable(purchase.url)],
      ...networks.map((network) => [`Payment URI on ${network.name} (EIP-681)`, copyable(network.paymentUri)] as const),
    ]);
    const select = byId(ids.purchaseTxNetwork, HTMLSelectElement);
    if ([...select.options].map((o) => o.value).join() !== networks.map((n) => n.name).join())
      select.replaceChildren(...networks.map((network) => el('option', { value: network.name }, network.name)));
  }

  /** Reads the purchase again and shows it, and says so when its status changed. Throws STALE when it is no longer shown. */
  async function load(mine: number): Promise<CreditPurchase> {
    if (mine !== generation) throw STALE;
    const fresh = await api.get<CreditPurchase>(path());
    if (mine !== generation) throw STALE;
    const changed = fresh.status !== purchase.status;
    purchase = fresh;
    render();
    if (changed) onChange(fresh);
    follow(mine);
    return fresh;
  }

  /** Reads the purchase every FOLLOW_MS while a payment is pending; another purchase shown ends it. */
  function follow(mine: number): void {
    window.clearTimeout(timer);
    if (!pending(purchase)) return;
    timer = window.setTimeout(async () => {
      if (mine !== generation) return;
      try {
        await load(mine);
      } catch (failure) {
        // A lost session ends it (the sign-in screen says why); anything else is tried again.
        if (failure !== STALE && !(failure as Failure)?.sessionLost) follow(mine);
      }
    }, FOLLOW_MS);
  }

  /** After a 202 the purchase is processing (the service recorded it so before answering): say so at once, then follow it. */
  async function submitted(mine: number): Promise<void> {
    if (mine !== generation) return;
    purchase = { ...purchase, status: 'processing' };
    render();
    onChange(purchase);
    await load(mine).catch((failure) => failure !== STALE && follow(mine));
  }

  async function pay(wallet: Wallet, button: HTMLButtonElement): Promise<void> {
    const mine = generation;
    const network = purchase.payment.networks[0];
    if (!network) return; // the wallet buttons are shown only while there is a network to pay on
    const url = path('authorizations'); // this purchase's, whatever is shown by the time the wallet answers
    paying = true;
    for (const other of walletList.querySelectorAll('button')) other.disabled = true;
    error(undefined);
    try {
      await busy(button, async () => {
        const body = await signPurchasePayment(wallet, network, () => load(mine), step);
        step('Submitting the payment…');
        await api.post(url, body);
      });
      step(undefined);
      await submitted(mine);
    } catch (failure) {
      step(undefined);
      if (mine === generation && failure !== STALE && !(failure as Failure)?.sessionLost) {
        error(payFailure(failure));
        await load(mine).catch(() => {});
      }
    } finally {
      paying = false;
      for (const other of walletList.querySelectorAll('button')) other.disabled = false;
    }
  }

  txForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const mine = generation;
    const txHash = field(txForm, 'txHash').value.trim();
    if (!/^0x[0-9a-fA-F]{64}$/.test(txHash))
      return formError(txForm, 'A transaction hash is 0x followed by 64 hexadecimal characters.');
    formError(txForm);
    const url = path('transactions');
    try {
      const submitter = event.submitter ?? txForm.querySelector('button');
      if (!(submitter instanceof HTMLButtonElement)) return;
      await busy(submitter, () => api.post(url, { network: field(txForm, 'network').value, txHash }));
      if (mine !== generation) return;
      txForm.reset();
      await load(mine);
    } catch (failure) {
      const message = (failure as Failure)?.message;
      if (mine === generation && failure !== STALE && !(failure as Failure)?.sessionLost)
        formError(txForm, typeof message === 'string' ? message : undefined);
    }
  });

  onWalletsChanged(renderWallets);

  /** Shows `selected` (a purchase as the API answered it) of workspace `ws`, and follows it while a payment is pending. */
  function showPurchase(ws: Workspace, selected: CreditPurchase): void {
    const mine = ++generation;
    window.clearTimeout(timer);
    workspace = ws;
    purchase = selected;
    step(undefined);
    error(undefined);
    txForm.reset();
    formError(txForm);
    renderWallets();
    render();
    show(card, true);
    follow(mine);
  }

  return {
    show: showPurchase,
    /** Opens the purchase with this id as the service has it now. */
    async open(ws, purchaseId) {
      const asked = ++generation;
      const fresh = await api.get<CreditPurchase>(workspacePath(ws.id, 'credit-purchases', purchaseId));
      if (asked !== generation) return; // another purchase was opened meanwhile
      showPurchase(ws, fresh);
      card.scrollIntoView({ block: 'nearest' });
    },
    hide() {
      generation += 1;
      window.clearTimeout(timer);
      show(card, false);
    },
  };
}
