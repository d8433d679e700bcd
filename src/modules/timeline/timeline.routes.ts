import type { TimelineService } from './timeline.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import type { InvoiceId } from '../invoices/index.js';
import { InvoiceParams } from '../invoices/index.js';
import { TIMELINE_LIMIT } from './timeline.js';
import { InvoiceTimelineView } from './timeline.schemas.js';
import { timelineExamples } from './timeline.examples.js';

/** What these routes call. */
export interface TimelineRouteDeps {
  readonly timeline: TimelineService;
}

const DESCRIPTION = [
  `What happened to one invoice and to the webhooks about it: the ${TIMELINE_LIMIT} most recent records at most, oldest first, ` +
    'each with its time `at` and its `kind`. `truncated` is true when records are missing: older ones beyond these, or ones retention removed.',
  'Lifecycle kinds (from the change feed; `eventId` is the feed event id): `created`; `payment_submitted` (a payment is being verified: ' +
    'an authorization was accepted, or a submitted transfer that pays the invoice was found in a block; with `paymentIntentId`); ' +
    '`verification_pending` (the invoice is processing while the payment is verified or settled); ' +
    '`payment_confirmed` (the payment succeeded on-chain); `paid`; `payment_failed` (with `paymentIntentId` and `failureReason`); ' +
    '`overpayment_received` (a second payment landed after the invoice was paid or cancelled, with `paymentIntentId`); ' +
    '`payment_reverted` (a reorganisation of the chain took the confirmed payment out before it was final, with `paymentIntentId`); ' +
    '`reopened` (the invoice is open again after a failed payment); `expired`; `cancelled`; `renewed` (with the new `linkVersion` ' +
    'and `expiresAt`). Payment records carry `paymentIntentId`: read the details with GET /payment-intents/{id}.',
  '`webhook_attempt`: one attempt to deliver a webhook about this invoice, with the event sent (`eventId`), `attempt` number, the ' +
    "receiver's `statusCode` (null when it did not answer), the safe `error` category (null when acknowledged) and `durationMs`. " +
    'Response bodies, headers and secrets are never recorded or shown.',
  'Records at the same instant keep the order they were committed in; a webhook attempt comes after the event it sends. ' +
    'Records follow invoice retention: lifecycle records are kept INVOICE_RETENTION_DAYS (default 400), after the change feed has ' +
    'dropped their events (EVENT_RETENTION_DAYS, default 30); webhook attempts are kept 30 days. Once retention has removed any ' +
    'record of an invoice, `truncated` is true; `status` is always the invoice as it is now. ' +
    'An invoice of another workspace answers 404 `not_found`, as an unknown one does.',
  'An invoice older than INVOICE_RETENTION_DAYS is archived (GET /invoices/{id} says `archived: true`): its timeline ' +
    'answers its `snapshot` (number, amount, description, order reference, status, dates, network, and the ids of the ' +
    'payment that paid it and of its receipt) with `truncated: true`, and only such records as are younger than the ' +
    'retention. The invoice stays readable, listed and found by search, and its receipt (JSON and PDF) stays readable.',
].join('\n\n');

/** GET /invoices/{id}/timeline: the API, and the portal's invoice detail. */
export function timelineRoutes(services: TimelineRouteDeps): SharedRoute[] {
  return [
    sharedRoute({
      method: 'GET',
      url: '/invoices/:invoiceId/timeline',
      permission: 'payments:read',
      schema: {
        tags: ['Invoices'],
        summary: "An invoice's lifecycle and webhook delivery records",
        description: DESCRIPTION,
        params: InvoiceParams,
        response: { 200: InvoiceTimelineView },
      },
      errors: ['not_found'],
      examples: timelineExamples.timeline,
      portal: { description: 'As GET /invoices/{id}/timeline.' },
      handler: async (request) =>
        services.timeline.forInvoice(request.principal!.workspaceId, request.params.invoiceId as InvoiceId),
    }),
  ];
}
