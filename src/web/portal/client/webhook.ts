// The webhook card: endpoint, pause and resume, secret rotation, test event, recent deliveries and
// attempts, and a retry for a failed delivery.
import { api, workspacePath } from './api.js';
import type { Delivery, Webhook, WebhookSettings, WebhookTest, Workspace } from './api-types.js';
import {
  attemptError,
  badge,
  busy,
  byId,
  el,
  field,
  formError,
  notify,
  reportError,
  show,
  submitButton,
  timeEl,
} from './dom.js';

type Attempt = Webhook['recentAttempts'][number];
type DeliveryRow = Webhook['deliveries'][number];
/** The PUT /webhook body this card sends: a new endpoint, pause or resume, or a new secret. */
type WebhookChange = { endpoint: string } | { enabled: boolean } | { rotate: true };
import { secretBox } from './secret.js';
import { ids } from '../portal.ids.js';

const result = (statusCode: number | null, error: string | null): string =>
  error === null ? `${statusCode} OK` : attemptError({ statusCode, error });

/** `onChange()` runs after anything that may raise or clear a health issue (pause, resume, retry). */
export function createWebhookView({ onChange }: { readonly onChange: () => void }): {
  hideSecret(): void;
  show(selected: Workspace): Promise<void>;
} {
  const form = byId(ids.webhookForm, HTMLFormElement);
  const toggle = byId(ids.webhookToggle, HTMLButtonElement);
  const testResult = byId(ids.webhookTestResult);
  const secret = secretBox('webhook');
  let workspace: Workspace;
  let view: Webhook | undefined;
  let generation = 0;

  function deliveryRow(delivery: DeliveryRow): HTMLElement {
    const retry =
      delivery.status === 'failed' && !delivery.eventId.startsWith('test_')
        ? el('button', { type: 'button', class: 'secondary small' }, 'Retry now')
        : undefined;
    retry?.addEventListener('click', () => retryDelivery(delivery, retry));
    return el(
      'tr',
      {},
      el('td', { 'data-label': 'Event' }, el('code', {}, delivery.eventId)),
      el('td', { 'data-label': 'Type' }, delivery.type),
      el('td', { 'data-label': 'Status' }, badge(delivery.status)),
      el('td', { 'data-label': 'Attempts', class: 'num' }, String(delivery.attempts)),
      el(
        'td',
        { 'data-label': 'Last result' },
        delivery.lastAttemptAt ? result(delivery.lastStatusCode, delivery.lastError) : '—',
      ),
      el('td', { 'data-label': 'Last attempt' }, timeEl(delivery.lastAttemptAt, '—', { seconds: true })),
      el('td', { 'data-label': 'Next attempt' }, timeEl(delivery.nextAttemptAt, '—', { seconds: true })),
      el('td', { class: 'actions-cell' }, retry),
    );
  }

  /** The event id, linking to its invoice's detail when the event is about one. */
  const eventLink = (attempt: Attempt): HTMLElement => {
    const id = el('code', {}, attempt.eventId);
    return attempt.invoiceId
      ? el('a', { href: `#invoice/${encodeURIComponent(attempt.invoiceId)}`, title: 'Open its invoice' }, id)
      : id;
  };

  const attemptRow = (attempt: Attempt): HTMLElement =>
    el(
      'tr',
      {},
      el('td', { 'data-label': 'Event' }, eventLink(attempt)),
      el('td', { 'data-label': 'Attempt', class: 'num' }, String(attempt.attempt)),
      el('td', { 'data-label': 'Started' }, timeEl(attempt.startedAt, '—', { seconds: true })),
      el('td', { 'data-label': 'Result' }, result(attempt.statusCode, attempt.error)),
      el('td', { 'data-label': 'Duration', class: 'num' }, `${attempt.durationMs} ms`),
    );

  function render(view: Webhook): void {
    const configured = view.endpoint !== null;
    byId(ids.webhookState).textContent = !configured
      ? 'No endpoint yet: payments are recorded, but your server is not told.'
      : view.enabled
        ? 'Delivering events to this endpoint.'
        : `Paused${view.pausedAt ? ` since ${new Date(view.pausedAt).toLocaleString()}` : ''}: events wait and are sent when you resume.`;
    show(byId(ids.webhookControls), configured);
    toggle.textContent = view.enabled ? 'Pause delivery' : 'Resume delivery';
    byId(ids.deliveriesBody).replaceChildren(...view.deliveries.map(deliveryRow));
    show(byId(ids.deliveriesEmpty), view.deliveries.length === 0);
    byId(ids.attemptsBody).replaceChildren(...view.recentAttempts.map(attemptRow));
    show(byId(ids.attemptsEmpty), view.recentAttempts.length === 0);
  }

  /** Reloads the card; `fillEndpoint` also puts the saved endpoint in the form (on arrival and after saving). */
  async function refresh(fillEndpoint = false): Promise<void> {
    const mine = ++generation;
    const fresh = await api.get<Webhook>(workspacePath(workspace.id, 'webhook'));
    if (mine !== generation) return;
    view = fresh;
    if (fillEndpoint) field(form, 'endpoint').value = fresh.endpoint ?? '';
    render(fresh);
  }

  /** PUT /webhook with `body`; shows the secret when the answer carries one (creation, rotation). */
  async function configure(button: HTMLButtonElement, body: WebhookChange, done: string): Promise<void> {
    await busy(button, async () => {
      try {
        const answer = await api.put<WebhookSettings>(workspacePath(workspace.id, 'webhook'), body);
        if (answer.secret) secret.reveal(answer.secret);
        notify(done, 'success', { near: button });
        onChange();
        await refresh(true);
      } catch (error) {
        reportError(error, button);
      }
    });
  }

  async function retryDelivery(delivery: DeliveryRow, button: HTMLButtonElement): Promise<void> {
    await busy(button, async () => {
      try {
        await api.post<Delivery>(workspacePath(workspace.id, 'webhook', 'retry'), { eventId: delivery.eventId });
        notify(`Event ${delivery.eventId} will be sent again in a moment.`, 'success', { near: button });
        onChange();
        await refresh();
      } catch (error) {
        reportError(error, button);
      }
    });
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const endpoint = field(form, 'endpoint').value.trim();
    if (endpoint === '') return formError(form, 'Enter the https address of your webhook receiver.');
    formError(form);
    configure(
      submitButton(form),
      { endpoint },
      view?.endpoint ? 'Endpoint saved.' : 'Endpoint saved. Copy the signing secret below.',
    );
  });
  toggle.addEventListener('click', () => {
    if (view) configure(toggle, { enabled: !view.enabled }, view.enabled ? 'Delivery paused.' : 'Delivery resumed.');
  });
  const rotate = byId(ids.webhookRotate, HTMLButtonElement);
  rotate.addEventListener('click', () => {
    const question =
      'Rotate the signing secret?\n\nThe old secret stops working and delivery pauses until you resume it, so nothing is sent with a secret your receiver does not know yet.';
    if (window.confirm(question)) configure(rotate, { rotate: true }, 'New secret made; delivery is paused.');
  });
  const testButton = byId(ids.webhookTest, HTMLButtonElement);
  testButton.addEventListener('click', () =>
    busy(testButton, async () => {
      testResult.textContent = 'Sending a test event…';
      try {
        const test = await api.post<WebhookTest>(workspacePath(workspace.id, 'webhook', 'test'));
        testResult.textContent = test.delivered
          ? `Test event ${test.id} acknowledged (${test.statusCode}) in ${test.durationMs} ms.`
          : `Test event ${test.id} was not acknowledged: ${attemptError(test)}.`;
        await refresh();
      } catch (error) {
        testResult.textContent = '';
        reportError(error, testButton);
      }
    }),
  );
  const reload = byId(ids.webhookRefresh, HTMLButtonElement);
  reload.addEventListener('click', () =>
    busy(reload, () => refresh().catch((error: unknown) => reportError(error, reload))),
  );

  return {
    hideSecret: secret.hide,
    async show(selected) {
      if (selected.id !== workspace?.id) {
        view = undefined;
        form.reset();
        formError(form);
        testResult.textContent = '';
      }
      workspace = selected;
      secret.hide();
      // Not editable until the saved endpoint is in, so nothing typed meanwhile is overwritten.
      const endpoint = field(form, 'endpoint');
      endpoint.disabled = true;
      try {
        await refresh(true);
      } finally {
        endpoint.disabled = false;
      }
    },
  };
}
