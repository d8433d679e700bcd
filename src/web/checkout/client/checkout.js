/* global document, fetch, navigator, performance, window */
// The checkout page's script. The server's first paint already says everything; this adds the live
// countdown and status (server-sent events, polling the JSON details when those fail), the wallet buttons, copy buttons and the hash form.
import { formatRemaining, serverClock } from './time.js';
import { chainName, renderReceipt } from './receipt.js';
import { discoverWallets, signPayment, wallets } from './wallet.js';

const $ = (id) => document.getElementById(id);
const config = JSON.parse($('checkout-config').textContent);
const pageHadNetworks = config.details.networks.length > 0;
const clock = serverClock(config.details.serverTime, () => performance.now());
let details = config.details;
let pollTimer;
/** The live event stream while it works; polling takes over when it fails or ends. */
let stream;

/** An open invoice past its deadline is expired: the server's rule, applied the moment the timer ends. */
const effectiveStatus = () =>
  details.status === 'open' && Date.parse(details.expiresAt) <= clock.now() ? 'expired' : details.status;
const show = (node, visible) => node && (node.hidden = !visible);

function render() {
  const status = effectiveStatus();
  const badge = $('status');
  badge.textContent = config.statusLabels[status] ?? status;
  badge.dataset.status = status;
  $('countdown').textContent = formatRemaining(Date.parse(details.expiresAt) - clock.now());
  show($('time-left'), status === 'open');
  show($('deadline-line'), status !== 'paid'); // a paid invoice's deadline no longer matters
  renderReceipt(status === 'paid' ? details.receipt : null, config.chains);
  show($('print-receipt'), status === 'paid' && Boolean(details.receipt));
  for (const name of ['processing', 'paid', 'expired', 'cancelled']) show($(`notice-${name}`), status === name);
  const failure = status === 'open' && details.payment?.status === 'failed' ? details.payment.failureReason : null;
  $('failure-reason').textContent = failure ? (config.failureTexts[failure] ?? config.unknownFailureText) : '';
  show($('notice-failed'), Boolean(failure));
  // A page drawn without payment options (not open then) offers a reload when the merchant reopens the link.
  show($('notice-reopened'), status === 'open' && !pageHadNetworks);
  show($('pay'), status === 'open');
  const back = status === 'paid' ? details.successUrl : details.cancelUrl;
  const link = $('back-link');
  if (back && /^https?:\/\//i.test(back)) link.href = back;
  show(link, Boolean(back));
}

/** GET the details, or POST `payload` to `<checkout path>/<suffix>`; a refusal throws the API's own sentence. */
async function request(suffix, payload) {
  let response;
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
  const data = await response.json().catch(() => undefined);
  if (!response.ok) throw new Error(refusal(data, response.status));
  return data;
}

/**
 * What the buyer reads when the service refuses: the page's own sentence for a refusal with a known
 * `reason` (the API's message may quote a chain code such as `insufficient_balance`), else the API's.
 */
function refusal(data, httpStatus) {
  const reason = data?.reason && config.failureTexts[data.reason];
  if (reason) return `This payment was not accepted: ${reason}`;
  return data?.message ?? `The payment service could not answer (HTTP ${httpStatus}). Try again in a moment.`;
}

function apply(fresh) {
  details = fresh;
  clock.sync(details.serverTime);
  render();
}

async function refresh() {
  apply(await request());
  return { details, serverNow: clock.now() };
}

/** Follows the invoice by server-sent events (a change shows at once); polls where that is not possible. */
function follow() {
  if (!window.EventSource) return schedulePoll();
  stream = new window.EventSource(`${config.path}/events`);
  stream.addEventListener('state', (event) => {
    apply(JSON.parse(event.data));
    // The server ends the stream after a final status; an expired link may still be reopened, which polling sees.
    if (['paid', 'expired', 'cancelled'].includes(details.status)) stopFollowing();
  });
  stream.addEventListener('error', stopFollowing); // refused, broken or ended: poll instead
}

function stopFollowing() {
  stream?.close();
  stream = undefined;
  schedulePoll();
}

/** Polls while something can still change: fast while verifying, slower while open, rarely once expired. */
function schedulePoll(delayMs) {
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

function tick() {
  const before = $('status').dataset.status;
  render();
  // The timer just ran out: ask the server at once, it enforces the deadline.
  if (before === 'open' && effectiveStatus() !== 'open') schedulePoll(0);
  // Next change of the displayed second, which counts down to the deadline's own millisecond.
  const untilNextSecond = (((Date.parse(details.expiresAt) - clock.now()) % 1000) + 1000) % 1000;
  window.setTimeout(tick, untilNextSecond + 5);
}

/** After a 202: the invoice is processing; say so at once, then follow it closely. */
function submitted() {
  details = { ...details, status: 'processing', payment: { ...(details.payment ?? {}), status: 'processing' } };
  render();
  schedulePoll(1000);
}

/** The buyer's network choice among the page's networks (the details list none while processing). */
const selectedNetwork = () => {
  const checked = document.querySelector('input[name="network"]:checked')?.value;
  const network = config.details.networks.find((each) => each.name === checked) ?? config.details.networks[0];
  return network && { ...network, label: chainName(config.chains, network.chainId, network.name).label };
};

function showNetwork() {
  const name = selectedNetwork()?.name;
  for (const panel of document.querySelectorAll('.network-panel')) show(panel, panel.dataset.network === name);
}

function message(id, text) {
  $(id).textContent = text ?? '';
  show($(id), Boolean(text));
}

async function payWith(wallet, button) {
  const network = selectedNetwork();
  const buttons = [...$('wallets').querySelectorAll('button')];
  buttons.forEach((b) => (b.disabled = true));
  message('wallet-error');
  const step = (text) => ($('wallet-status').textContent = text);
  try {
    const payment = await signPayment(wallet, network, refresh, step);
    step('Submitting the payment…');
    await request('authorizations', payment);
    step(''); // the processing notice takes over
    submitted();
  } catch (error) {
    step('');
    message('wallet-error', error.message);
    await refresh().catch(() => {});
  } finally {
    buttons.forEach((b) => (b.disabled = false));
    button.blur();
  }
}

function renderWallets() {
  const list = $('wallets');
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
  show($('no-wallet'), found.length === 0 && walletGraceOver);
}

// Wallets announce themselves within moments of the page loading; after this, "no wallet" is the answer.
let walletGraceOver = false;
window.setTimeout(() => {
  walletGraceOver = true;
  if ($('wallets')) renderWallets();
}, 600);

async function copy(button) {
  const target = $(button.dataset.copy);
  const text = target.dataset.full || target.textContent; // a shortened hash copies in full
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    window.getSelection()?.selectAllChildren($(button.dataset.copy)); // no clipboard (plain http): select it
    button.textContent = 'Selected';
  }
  window.setTimeout(() => (button.textContent = label), 1500);
}

async function submitHash(event) {
  event.preventDefault();
  const input = $('tx-hash');
  const txHash = input.value.trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(txHash))
    return message('tx-error', 'A transaction hash is 0x followed by 64 hexadecimal characters.');
  const button = event.submitter ?? $('tx-form').querySelector('button');
  button.disabled = true;
  message('tx-error');
  try {
    await request('transactions', { network: selectedNetwork().name, txHash });
    input.value = '';
    submitted();
  } catch (error) {
    message('tx-error', error.message);
  } finally {
    button.disabled = false;
  }
}

function start() {
  const deadline = $('deadline');
  deadline.textContent = new Date(details.expiresAt).toLocaleString(undefined, {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  for (const button of document.querySelectorAll('button.copy')) {
    button.addEventListener('click', () => copy(button));
    show(button, true);
  }
  $('print-receipt').addEventListener('click', () => window.print());
  if ($('pay')) {
    // On a phone the wallet-app link is the way to pay; the QR code is for a second device.
    if (window.matchMedia('(max-width: 59.99rem)').matches)
      for (const box of document.querySelectorAll('.qr-box')) box.open = false;
    for (const radio of document.querySelectorAll('input[name="network"]'))
      radio.addEventListener('change', showNetwork);
    showNetwork();
    $('tx-form').addEventListener('submit', submitHash);
    show($('tx-form'), true);
    show($('wallet-pay'), true);
    discoverWallets(renderWallets);
    renderWallets();
  }
  document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && schedulePoll(0));
  tick();
  follow();
}

start();
