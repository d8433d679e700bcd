import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Services } from '../../http/services.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { formatInvoiceNumber, type InvoiceId } from '../invoices/index.js';
import { presentIntent } from './payment.service.js';
import {
  decodePaymentHeader,
  paymentResponseHeader,
  v1NetworkName,
  v1PaymentRequired,
  v2NetworkName,
  v2PaymentRequiredHeader,
} from './x402.js';

/** How long a paying request waits for settlement before answering 202 (the job finishes it anyway). */
const SETTLEMENT_WAIT_MS = 25_000;

/**
 * The invoice's `url`: an x402 resource. Without a payment header it answers 402 with the v2
 * `PAYMENT-REQUIRED` header and the v1 JSON body, so clients of either version can pay it. With one, it
 * verifies the authorization, records the payment and waits for settlement: 200 with the payment
 * response once paid, 402 with the reason if the payment failed, 202 if settlement outlives the wait.
 * Public: the invoice id in the path is the capability.
 */
export function registerX402(app: FastifyInstance, services: Services): void {
  const handler = async (
    request: { params: unknown; headers: Record<string, string | string[] | undefined> },
    reply: FastifyReply,
  ) => {
    const { workspaceId, invoiceId } = request.params as { workspaceId: WorkspaceId; invoiceId: InvoiceId };
    reply.header('Cache-Control', 'no-store');
    const v2 = request.headers['payment-signature'];
    const v1 = request.headers['x-payment'];
    const header = typeof v2 === 'string' ? v2 : typeof v1 === 'string' ? v1 : undefined;
    if (header === undefined) return paymentRequired(reply, services, workspaceId, invoiceId, 'Payment required');

    const version = typeof v2 === 'string' ? 2 : 1;
    const submission = decodePaymentHeader(header, version);
    if (typeof submission === 'string') return paymentRequired(reply, services, workspaceId, invoiceId, submission);
    let intentId;
    try {
      intentId = (await services.payments.submitAuthorization(workspaceId, invoiceId, submission)).id;
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_payment')
        return paymentRequired(reply, services, workspaceId, invoiceId, error.message);
      throw error;
    }
    const intent = await services.payments.waitForOutcome(workspaceId, intentId, SETTLEMENT_WAIT_MS);
    const network = services.payments.networkNamed(intent.network);
    const responseHeader = paymentResponseHeader({
      success: intent.status === 'succeeded',
      transaction: intent.txHash ?? '',
      network: version === 2 ? v2NetworkName(network) : v1NetworkName(network),
      payer: intent.payer ?? '',
      ...(intent.failureReason ? { errorReason: intent.failureReason } : {}),
    });
    // Only a finished payment has a payment response; a 202 says "still settling", not "failed".
    if (intent.status !== 'processing')
      reply.header(version === 2 ? 'PAYMENT-RESPONSE' : 'X-PAYMENT-RESPONSE', responseHeader);
    if (intent.status === 'failed')
      return paymentRequired(reply, services, workspaceId, invoiceId, `payment failed: ${intent.failureReason}`);
    const invoice = await services.invoices.get(workspaceId, invoiceId);
    return reply.code(intent.status === 'succeeded' ? 200 : 202).send({
      invoiceId,
      number: formatInvoiceNumber(invoice.number),
      status: invoice.status,
      paymentIntent: presentIntent(intent, invoice),
    });
  };
  const hide = { hide: true } as const;
  app.get('/w/:workspaceId/x402/:invoiceId', { schema: hide }, handler);
  app.post('/w/:workspaceId/x402/:invoiceId', { schema: hide }, handler);
}

/** 402 with both spellings of what the invoice asks for; an invoice that cannot be paid gets its error. */
async function paymentRequired(
  reply: FastifyReply,
  services: Services,
  workspaceId: WorkspaceId,
  invoiceId: InvoiceId,
  error: string,
) {
  const { invoice, requirements } = await services.payments.requirements(workspaceId, invoiceId);
  const resource = {
    url: `${services.config.publicBaseUrl.origin}/w/${workspaceId}/x402/${invoiceId}`,
    description: `Invoice ${formatInvoiceNumber(invoice.number)}`,
  };
  reply.header('PAYMENT-REQUIRED', v2PaymentRequiredHeader(requirements, resource, error));
  return reply.code(402).send({ ...v1PaymentRequired(requirements, resource, error), requestId: reply.request.id });
}
