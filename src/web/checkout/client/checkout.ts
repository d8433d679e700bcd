// The checkout page's script. The server's first paint already says everything; this adds the live
// countdown and status (server-sent events, polling the JSON details when those fail), the wallet buttons, copy buttons and the hash form.
import { chainName } from '../../../chain/chain-names.js';
import type { CheckoutClientConfig, CheckoutDetails } from '../checkout.page.js';
import {
  FAILURE_TEXTS,
  STATUS_LABELS,
  UNKNOWN_FAILURE_TEXT,
  formatRemaining,
  hashNote,
  shownStatus,
  type AttemptState,
  type ShownStatus,
} from '../checkout.text.js';
import { byId } from '../../shared/client/dom.js';
import { renderReceipt } from './receipt.js';
import { serverClock } from './time.js';
import { type PayNetwork, type Wallet, discoverWallets, signPayment, wallets } from './wallet.js';
import { ids, statusNoticeIds } from '../checkout.ids.js';

/**
 * The details as shown: the service's last answer, except that after a 202 for an authorization (which
 * holds the invoice at once) the page says "processing" at once, before the next answer brings the
 * payment attempt itself. A submitted hash holds nothing until the chain shows it: no such shortcut.
 */
type ShownDetails = Omit<CheckoutDetails, 'payment'> & { readonly payment: AttemptState | null };

const $ = (id: string) => document.getElementById(id);
const config = JSON.parse(byId(ids.config).textContent ?? '') as CheckoutClientConfig;
const pageHadNetworks = config.details.networks.length > 0;
const clock = serverClock(config.details.serverTime, () => performance.now());
let details: ShownDetails = config.details;
let pollTimer: number | undefined;
/** The live event stream while it works; polling takes over when it fails or ends. */
let stream: EventSource | undefined;

/** The sentence for a failure reason; a reason this page does not know yet still gets a sentence. */
const failureText = (reason: string): string =>
  (FAILURE_TEXTS as Readonly<Record<string, string>>)[reason] ?? UNKNOWN_FAILURE_TEXT;

/** An open invoice past its deadline is expired: the server's rule, applied the moment the timer ends. */
const effectiveStatus = (): ShownStatus => shownStatus(details, clock.now());
const show = (node: HTMLElement | null, visible: boolean) => {
  if (node) node.hidden = !visible;
};

function render(): void {
  const status = effectiveStatus();
  const badge = byId(ids.status);
  badge.textContent = STATUS_LABELS[status] ?? status;
  badge.dataset.status = status;
  byId(ids.countdown).textContent = formatRemaining(Date.parse(details.expiresAt) - clock.now());
  show($(ids.timeLeft), status === 'open');
  // The deadline of a paid invoice, or of a link that takes no payment, no longer matters.
  show($(ids.deadlineLine), status !== 'paid' && status !== 'unpayable');
  renderReceipt(status === 'paid' ? details.receipt : null);
  show($(ids.printReceipt), status === 'paid' && Boolean(details.receipt));
  for (const [name, id] of Object.entries(statusNoticeIds)) show($(id), status === name);
  // A refused hash is told next to the hash field (when the page has one), where the next one is pasted.
  const txNote = $(ids.txNote);
  const failed = status === 'open' && details.payment?.status === 'failed' ? details.payment : null;
  const failure = failed && !(txNote && failed.method === 'transaction') ? failed.failureReason : null;
  byId(ids.failureReason).textContent = failure ? failureText(failure) : '';
  show($(ids.noticeFailed), Boolean(failure));
  if (txNote) {
    const note = status === 'open' ? hashNote(details.payment) : undefined;
    txNote.textContent = note?.text ?? '';
    txNote.dataset.kind = note?.kind ?? '';
    show(txNote, Boolean(note));
  }
  // A page drawn without payment options (not open then) offers a reload when the merchant reopens the link.
  show($(ids.noticeReopened), status === 'open' && !pageHadNetworks);
  show($(ids.pay), status === 'open');
  showGasless();
  const back = status === 'paid' ? details.successUrl : details.cancelUrl;
  const link = byId(ids.backLink, HTMLAnchorElement);
  if (back && /^https?:\/\//i.test(back)) link.href = back;
  show(link, Boolean(back));
}

/** GET the details, or POST `payload` to `<checkout path>/<suffix>`; a refusal throws the API's own sentence. */
async function request(suffix?: string, payload?: object): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(suffix ? `${config.path}/${suffix}` : config.path, {
      method: payload ? 'POST' : 'GET',
      headers: payload
        ? { accept: 'application/json', 'content-type': 'application/json' }
        : { accept: 'application/json' },
      body: payload && JSON.stringify(payload),
      cache: 'no-store',
    });
  } catch {
    throw new Error('Could not reach the payment service. Check your connection and try again.');
  }
  const data: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw new Error(refusal(data, response.status));
  return data;
}

/**
 * What the buyer reads when the service refuses: the page's own sentence for a refusal with a known
 * `reason` (the API's message may quote a chain code such as `insufficient_balance`), else the API's.
 */
function refusal(data: unknown, httpStatus: number): string {
  const body = data as { reason?: unknown; message?: unknown } | undefined;
  const reason = typeof body?.reason === 'string' && (FAILURE_TEXTS as Readonly<Record<string, string>>)[body.reason];
  if (reason) return `This payment was not accepted: ${reason}`;
  return typeof body?.message === 'string'
    ? body.message
    : `The payment service could not answer (HTTP ${httpStatus}). Try again in a moment.`;
}

function apply(fresh: CheckoutDetails): void {
  details = fresh;
  clock.sync(details.serverTime);
  render();
}

async function refresh(): Promise<{ details: CheckoutDetails; serverNow: number }> {
  const fresh = (await request()) as CheckoutDetails;
  apply(fresh);
  return { details: fresh, serverNow: clock.now() };
}

/** Follows the invoice by server-sent events (a change shows at once); polls where that is not possible. */
function follow(): void {
  if (!window.EventSource) return schedulePoll();
  stream = new window.EventSource(`${config.path}/events`);
  stream.addEventListener('state', (event) => {
    apply(JSON.parse((event as MessageEvent<string>).data) as CheckoutDetails);
    // The server ends the stream after a final status; an expired link may still be reopened, which polling sees.
    if (['paid', 'expired', 'cancelled'].includes(details.status)) stopFollowing();
  });
  stream.addEventListener('error', stopFollowing); // refused, broken or ended: poll instead
}

function stopFollowing(): void {
  stream?.close();
  stream = undefined;
  schedulePoll();
}

/** Polls while something can still change: fast while verifying, slower while open, rarely once expired. */
function schedulePoll(delayMs?: number): void {
  window.clearTimeout(pollTimer);
  if (stream) return; // the stream tells every change
  const status = effectiveStatus();
  if (status === 'paid' || status === 'cancelled') return;
  const delay = delayMs ?? (status === 'processing' ? 2000 : status === 'open' ? 5000 : 30000);
  pollTimer = window.setTimeout(async () => {
    if (document.visibilityState === 'hidden') return schedulePoll(); // resumes on visibilitychange
    await refresh().catch(() => {}); // a failed poll is retried on schedule; the page stays as it was
    schedulePoll();
  }, delay);
}

function tick(): void {
  const before = byId(ids.status).dataset.status;
  render();
  // The timer just ran out: ask the server at once, it enforces the deadline.
  if (before === 'open' && effectiveStatus() !== 'open') schedulePoll(0);
  // Next change of the displayed second, which counts down to the deadline's own millisecond.
  const untilNextSecond = (((Date.parse(details.expiresAt) - clock.now()) % 1000) + 1000) % 1000;
  window.setTimeout(tick, untilNextSecond + 5);
}

/** After a 202 for an authorization: the invoice is processing; say so at once, then follow it closely. */
function submitted(): void {
  const payment = {
    method: 'authorization',
    status: 'processing',
    failureReason: null,
    transactionHash: null,
    foundAt: null,
  } as const;
  details = { ...details, status: 'processing', payment };
  render();
  schedulePoll(1000);
}

/** The buyer's network choice among the page's networks (the details list none while processing). */
const selectedNetwork = (): PayNetwork | undefined => {
  const checked = document.querySelector<HTMLInputElement>('input[name="network"]:checked')?.value;
  const network = config.details.networks.find((each) => each.name === checked) ?? config.details.networks[0];
  return network && { ...network, label: chainName(network.chainId, network.name).label };
};

function showNetwork(): void {
  const name = selectedNetwork()?.name;
  for (const panel of document.querySelectorAll<HTMLElement>('.network-panel'))
    show(panel, panel.dataset.network === name);
  showGasless();
}

/**
 * The wallet button where the selected network takes a payment without gas now; else the line that
 * sends the buyer to the plain transfer (the service would refuse the signed payment). The latest
 * details decide, so a payment refused meanwhile turns the page at once; while they list no networks
 * (processing), the first paint's do.
 */
function showGasless(): void {
  if (!$(ids.walletPay)) return;
  const name = selectedNetwork()?.name;
  const latest = details.networks.find((each) => each.name === name);
  const gasless = (latest ?? selectedNetwork())?.gasless === true;
  show($(ids.walletPay), gasless);
  show($(ids.gaslessOff), !gasless);
}

function message(id: string, text?: string): void {
  byId(id).textContent = text ?? '';
  show(byId(id), Boolean(text));
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function payWith(wallet: Wallet, button: HTMLButtonElement): Promise<void> {
  const network = selectedNetwork();
  const buttons = [...byId(ids.wallets).querySelectorAll('button')];
  buttons.forEach((b) => (b.disabled = true));
  message(ids.walletError);
  const step = (text: string) => (byId(ids.walletStatus).textContent = text);
  try {
    if (!network) throw new Error('This invoice cannot take a payment now.');
    const payment = await signPayment(wallet, network, refresh, step);
    step('Submitting the payment…');
    await request('authorizations', payment);
    step(''); // the processing notice takes over
    submitted();
  } catch (error) {
    step('');
    message(ids.walletError, errorMessage(error));
    await refresh().catch(() => {});
  } finally {
    buttons.forEach((b) => (b.disabled = false));
    button.blur();
  }
}

function renderWallets(): void {
  const list = byId(ids.wallets);
  const found = wallets();
  list.replaceChildren(
    ...found.map((wallet) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'wallet primary';
      if (wallet.icon)
        button.append(
          Object.assign(document.createElement('img'), { src: wallet.icon, alt: '', width: 24, height: 24 }),
        );
      button.append(`Pay with ${wallet.name}`);
      button.addEventListener('click', () => payWith(wallet, button));
      return button;
    }),
  );
  show($(ids.noWallet), found.length === 0 && walletGraceOver);
  // One primary action: a wallet in this browser is the buyer's easiest way; the wallet app is the next.
  for (const link of document.querySelectorAll('.open-wallet')) link.classList.toggle('primary', found.length === 0);
}

// Wallets announce themselves within moments of the page loading; after this, "no wallet" is the answer.
let walletGraceOver = false;
window.setTimeout(() => {
  walletGraceOver = true;
  if ($(ids.wallets)) renderWallets();
}, 600);

async function copy(button: HTMLElement): Promise<void> {
  const target = byId(button.dataset.copy ?? '');
  const text = target.dataset.full || target.textContent || ''; // a shortened hash copies in full
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    window.getSelection()?.selectAllChildren(target); // no clipboard (plain http): select it
    button.textContent = 'Selected';
  }
  window.setTimeout(() => (button.textContent = label), 1500);
}

async function submitHash(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const input = byId(ids.txHash, HTMLInputElement);
  const txHash = input.value.trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(txHash))
    return message(ids.txError, 'A transaction hash is 0x followed by 64 hexadecimal characters.');
  const submitter = event.submitter ?? byId(ids.txForm).querySelector('button');
  const button = submitter instanceof HTMLButtonElement ? submitter : undefined;
  if (button) button.disabled = true;
  message(ids.txError);
  try {
    await request('transactions', { network: selectedNetwork()?.name, txHash });
    // The field is free for another hash at once; what is known of this one comes from the server, as
    // after a reload: looked for until the chain shows it, and every way to pay stays meanwhile. The
    // stream tells the recorded hash by itself; without it the details are read now (a failed read is
    // made good by the next poll).
    input.value = '';
    if (!stream) await refresh().catch(() => {});
  } catch (error) {
    message(ids.txError, errorMessage(error));
  } finally {
    if (button) button.disabled = false;
  }
}

function start(): void {
  const deadline = byId(ids.deadline);
  deadline.textContent = new Date(details.expiresAt).toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  for (const button of document.querySelectorAll<HTMLButtonElement>('button.copy')) {
    button.addEventListener('click', () => copy(button));
    show(button, true);
  }
  byId(ids.printReceipt).addEventListener('click', () => window.print());
  if ($(ids.pay)) {
    // On a phone the wallet-app link is the way to pay; the QR code is for a second device.
    if (window.matchMedia('(max-width: 59.99rem)').matches)
      for (const box of document.querySelectorAll<HTMLDetailsElement>('.qr-box')) box.open = false;
    for (const radio of document.querySelectorAll('input[name="network"]'))
      radio.addEventListener('change', showNetwork);
    showNetwork();
    byId(ids.txForm, HTMLFormElement).addEventListener('submit', submitHash);
    show($(ids.txForm), true);
    discoverWallets(renderWallets);
    renderWallets();
  }
  document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && schedulePoll(0));
  tick();
  follow();
}

start();
