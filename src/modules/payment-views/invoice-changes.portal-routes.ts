import type { FastifyReply } from 'fastify';
import { WorkspaceParams } from '../../http/common.schemas.js';
import { StreamSlots } from '../../http/event-stream.js';
import type { Clock } from '../../shared/clock.js';
import type { PaymentService } from '../payment-engine/index.js';
import { portalRoute, type WorkspaceRoute } from '../../http/workspace-route.js';
import { streamInvoiceChanges } from './invoice-changes.js';
import { InvoiceChangeStream } from './invoice-changes.schemas.js';
import { paymentExamples } from './payment.examples.js';

/** What these routes call. */
export interface InvoiceChangeRouteDeps {
  readonly clock: Clock;
  readonly payments: PaymentService;
}

/** Open streams one client address may hold in one process (a merchant with a few tabs), and all of them. */
const MAX_STREAMS_PER_IP = 10;
const MAX_STREAMS = 2000;

/** The portal's invoice list follows its workspace's invoices as they change, rather than polling. */
export function invoiceChangePortalRoutes(services: InvoiceChangeRouteDeps): WorkspaceRoute[] {
  const slots = new StreamSlots(MAX_STREAMS_PER_IP, MAX_STREAMS);
  const deps = { payments: services.payments, clock: services.clock, slots };
  return [
    portalRoute({
      method: 'GET',
      url: '/invoices/events',
      schema: {
        summary: "Follow the workspace's invoices live",
        description:
          'Server-sent events (for an EventSource) naming each invoice of the workspace that changes (paid, cancelled, expired, ' +
          'renewed, a payment found or failed), so that a list shows it the moment it is recorded, without polling: read the ' +
          'invoice again with GET …/invoices/{invoiceId}. New invoices are not announced. While the service cannot hear every ' +
          'change the stream ends, at once if it cannot now: poll GET …/invoices then. It also ends when the session expires ' +
          'and when the service shuts down. At most 10 open streams per client address (then 429 rate_limited).',
        params: WorkspaceParams,
        produces: ['text/event-stream'],
        response: { 200: InvoiceChangeStream },
      },
      errors: ['rate_limited'],
      examples: paymentExamples.invoiceChanges,
      // A stream lasts as long as its client stays: a shutdown ends them rather than waiting.
      preClose: () => slots.endAll(),
      handler: async (request, reply) => {
        const { workspaceId } = request.principal!;
        streamInvoiceChanges(deps, reply as FastifyReply, request.ip, workspaceId, request.portalSession!.expiresAt);
        return reply;
      },
    }),
  ];
}
