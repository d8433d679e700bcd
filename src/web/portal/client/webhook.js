/* global window */
// The webhook card: endpoint, pause and resume, secret rotation, test event, recent deliveries and
// attempts, and a retry for a failed delivery.
import { api, workspacePath } from './api.js';
import { attemptError, badge, busy, byId, el, formError, notify, reportError, show, timeEl } from './dom.js';
import { secretBox } from './secret.js';

const result = (statusCode, error) => (error === null ? `${statusCode} OK` : attemptError({ statusCode, error }));

/** `onChange()` runs after anything that may raise or clear a health issue (pause, resume, retry). */
export function createWebhookView({ onChange }) {
  const form = byId('webhook-form');
  const toggle = byId('webhook-toggle');
  const testResult = byId('webhook-test-result');
  const secret = secretBox('webhook');
  let workspace;
  let view;
  let generation = 0;

  function deliveryRow(delivery) {
    const retry =
      delivery.status === 'failed' && !delivery.eventId.startsWith('test_')
        ? el(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              onclick: (event) => retryDelivery(delivery, event.currentTarget),
            },
            'Retry now',
          )
        : undefined;
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
  const eventLink = (attempt) => {
    const id = el('code', {}, attempt.eventId);
    return attempt.invoiceId
      ? el('a', { href: `#invoice/${encodeURIComponent(attempt.invoiceId)}`, title: 'Open its invoice' }, id)
      : id;
  };

  const attemptRow = (attempt) =>
    el(
      'tr',
      {},
      el('td', { 'data-label': 'Event' }, eventLink(attempt)),
      el('td', { 'data-label': 'Attempt', class: 'num' }, String(attempt.attempt)),
      el('td', { 'data-label': 'Started' }, timeEl(attempt.startedAt, '—', { seconds: true })),
      el('td', { 'data-label': 'Result' }, result(attempt.statusCode, attempt.error)),
      el('td', { 'data-label': 'Duration', class: 'num' }, `${attempt.durationMs} ms`),
    );

  function render() {
    const configured = view.endpoint !== null;
    byId('webhook-state').textContent = !configured
      ? 'No endpoint yet: payments are recorded, but your server is not told.'
      : view.enabled
        ? 'Delivering events to this endpoint.'
        : `Paused${view.pausedAt ? ` since ${new Date(view.pausedAt).toLocaleString()}` : ''}: events wait and are sent when you resume.`;
    show(byId('webhook-controls'), configured);
    toggle.textContent = view.enabled ? 'Pause delivery' : 'Resume delivery';
    byId('deliveries-body').replaceChildren(...view.deliveries.map(deliveryRow));
    show(byId('deliveries-empty'), view.deliveries.length === 0);
    byId('attempts-body').replaceChildren(...view.recentAttempts.map(attemptRow));
    show(byId('attempts-empty'), view.recentAttempts.length === 0);
  }

  /** Reloads the card; `fillEndpoint` also puts the saved endpoint in the form (on arrival and after saving). */
  async function refresh(fillEndpoint = false) {
    const mine = ++generation;
    const fresh = await api.get(workspacePath(workspace.id, 'webhook'));
    if (mine !== generation) return;
    view = fresh;
    if (fillEndpoint) form.elements.endpoint.value = view.endpoint ?? '';
    render();
  }

  /** PUT /webhook with `body`; shows the secret when the answer carries one (creation, rotation). */
  async function configure(button, body, done) {
    await busy(button, async () => {
      try {
        const answer = await api.put(workspacePath(workspace.id, 'webhook'), body);
        if (answer.secret) secret.reveal(answer.secret);
        notify(done, 'success');
        onChange();
        await refresh(true);
      } catch (error) {
        reportError(error, body.endpoint ? form : undefined);
      }
    });
  }

  async function retryDelivery(delivery, button) {
    await busy(button, async () => {
      try {
        await api.post(workspacePath(workspace.id, 'webhook', 'retry'), { eventId: delivery.eventId });
        notify(`Event ${delivery.eventId} will be sent again in a moment.`, 'success');
        onChange();
        await refresh();
      } catch (error) {
        reportError(error);
      }
    });
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const endpoint = form.elements.endpoint.value.trim();
    if (endpoint === '') return formError(form, 'Enter the https address of your webhook receiver.');
    formError(form);
    configure(
      form.querySelector('[type=submit]'),
      { endpoint },
      view?.endpoint ? 'Endpoint saved.' : 'Endpoint saved. Copy the signing secret below.',
    );
  });
  toggle.addEventListener('click', () =>
    configure(toggle, { enabled: !view.enabled }, view.enabled ? 'Delivery paused.' : 'Delivery resumed.'),
  );
  byId('webhook-rotate').addEventListener('click', (event) => {
    const question =
      'Rotate the signing secret?\n\nThe old secret stops working and delivery pauses until you resume it, so nothing is sent with a secret your receiver does not know yet.';
    if (window.confirm(question))
      configure(event.currentTarget, { rotate: true }, 'New secret made; delivery is paused.');
  });
  byId('webhook-test').addEventListener('click', (event) =>
    busy(event.currentTarget, async () => {
      testResult.textContent = 'Sending a test event…';
      try {
        const test = await api.post(workspacePath(workspace.id, 'webhook', 'test'));
        testResult.textContent = test.delivered
          ? `Test event ${test.id} acknowledged (${test.statusCode}) in ${test.durationMs} ms.`
          : `Test event ${test.id} was not acknowledged: ${attemptError(test)}.`;
        await refresh();
      } catch (error) {
        testResult.textContent = '';
        reportError(error);
      }
    }),
  );
  byId('webhook-refresh').addEventListener('click', (event) =>
    busy(event.currentTarget, () => refresh().catch((error) => reportError(error))),
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
      const endpoint = form.elements.endpoint;
      endpoint.disabled = true;
      try {
        await refresh(true);
      } finally {
        endpoint.disabled = false;
      }
    },
  };
}
