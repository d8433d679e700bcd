import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../config/config.js';
import type { Clock } from '../../shared/clock.js';
import type { CreditPurchaseService } from '../credit-purchases/index.js';
import type { InvoiceService } from '../invoices/index.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { CreditPurchaseId } from '../credit-purchases/index.js';
import { formatInvoiceNumber, type InvoiceId } from '../invoices/index.js';
import {
  invoiceOrder,
  presentAttempt,
  presentIntent,
  purchaseOrder,
  type OrderRef,
  type PaymentIntent,
  type PaymentIntentId,
  type PaymentService,
  type SignedAuthorization,
} from '../payment-engine/index.js';
import { OrderStateCache } from './order-state-cache.js';
import {
  decodePaymentHeader,
  paymentResponseHeader,
  v1NetworkName,
  v1PaymentRequired,
  v2NetworkName,
  v2PaymentMismatch,
  v2PaymentRequiredHeader,
  requirementsOf,
} from './x402.js';

/** What these routes call. */
export interface X402RouteDeps {
  readonly config: Pick<Config, 'publicBaseUrl'>;
  readonly clock: Clock;
  readonly creditPurchases: CreditPurchaseService;
  readonly invoices: InvoiceService;
  readonly payments: PaymentService;
}

/** How long a paying request waits for settlement before answering 202 (the job finishes it anyway). */
const SETTLEMENT_WAIT_MS = 25_000;

/**
 * The x402 resources: an invoice's `url`, and a credit purchase's (an agent tops up its own credits).
 * Without a payment header one answers 402 with the v2 `PAYMENT-REQUIRED` header and the v1 JSON body, so
 * clients of either version can pay it. With one, it verifies the authorization, records the payment
 * and waits for settlement: 200 with the payment response once paid, 402 with the reason if the payment
 * failed, 202 if settlement outlives the wait. Public: the order id in the path is the capability.
 */
export function registerX402(app: FastifyInstance, deps: X402RouteDeps): void {
  // What the 402 challenges read of orders, kept while the engine's listener hears their changes.
  const orderStates = new OrderStateCache();
  const unfollow = deps.payments.orderChanges.follow(orderStates);
  app.addHook('onClose', async () => unfollow());
  const services = { ...deps, orderStates };
  const hide = { hide: true } as const;
  const invoice = x402Handler(
    services,
    (params) => invoiceOrder(params.invoiceId as InvoiceId),
    async (ws, ref, intent) => {
      const paid = await services.invoices.get(ws, ref.id as InvoiceId);
      return {
        invoiceId: paid.id,
        number: formatInvoiceNumber(paid.number),
        status: paid.status,
        paymentIntent: presentIntent(intent, { number: formatInvoiceNumber(paid.number), externalId: paid.externalId }),
      };
    },
  );
  app.get('/w/:workspaceId/x402/:invoiceId', { schema: hide }, invoice);
  app.post('/w/:workspaceId/x402/:invoiceId', { schema: hide }, invoice);

  const purchase = x402Handler(
    services,
    (params) => purchaseOrder(params.purchaseId as CreditPurchaseId),
    async (ws, ref, intent) => ({
      creditPurchase: await services.creditPurchases.get(ws, ref.id as CreditPurchaseId),
      payment: presentAttempt(intent),
    }),
  );
  app.get('/w/:workspaceId/x402/credit-purchases/:purchaseId', { schema: hide }, purchase);
  app.post('/w/:workspaceId/x402/credit-purchases/:purchaseId', { schema: hide }, purchase);
}

type Params = Record<string, string> & { workspaceId: WorkspaceId };
type X402Services = X402RouteDeps & { readonly orderStates: OrderStateCache };

function x402Handler(
  services: X402Services,
  orderOf: (params: Params) => OrderRef,
  present: (workspaceId: WorkspaceId, ref: OrderRef, intent: PaymentIntent) => Promise<unknown>,
) {
  return async (
    request: { params: unknown; headers: Record<string, string | string[] | undefined> },
    reply: FastifyReply,
  ) => {
    const params = request.params as Params;
    const { workspaceId } = params;
    const ref = orderOf(params);
    reply.header('Cache-Control', 'no-store');
    const v2 = request.headers['payment-signature'];
    const v1 = request.headers['x-payment'];
    const header = typeof v2 === 'string' ? v2 : typeof v1 === 'string' ? v1 : undefined;
    if (header === undefined) return paymentRequired(reply, services, workspaceId, ref, 'Payment required');

    const version = typeof v2 === 'string' ? 2 : 1;
    const submission = decodePaymentHeader(header, version);
    if (typeof submission === 'string') return paymentRequired(reply, services, workspaceId, ref, submission);
    const mismatch = v2PaymentMismatch(submission, resourceUrl(services, workspaceId, ref));
    if (mismatch) return paymentRequired(reply, services, workspaceId, ref, mismatch);
    const attempt = await attemptOf(services, workspaceId, ref, submission);
    if ('refused' in attempt) return paymentRequired(reply, services, workspaceId, ref, attempt.refused);
    const intent = await services.payments.waitForOutcome(workspaceId, attempt.id, SETTLEMENT_WAIT_MS);
    // The order changed with this outcome; a copy taken while it was processing must not answer below.
    services.orderStates.drop(workspaceId, ref.id);
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
      return paymentRequired(reply, services, workspaceId, ref, `payment failed: ${intent.failureReason}`);
    return reply.code(intent.status === 'succeeded' ? 200 : 202).send(await present(workspaceId, ref, intent));
  };
}

/**
 * The payment attempt of this payment: the one it already made when it is sent again (after a lost
 * answer, or two copies at once; by its payment identifier, or by its very signature), so the copy gets
 * the first one's answer, never a 409 and never a second settlement; otherwise a new one. A refusal the
 * buyer can act on is answered as a 402.
 */
async function attemptOf(
  services: X402Services,
  workspaceId: WorkspaceId,
  ref: OrderRef,
  submission: SignedAuthorization,
): Promise<{ id: PaymentIntentId } | { refused: string }> {
  const { payments } = services;
  const earlier = await payments.samePayment(workspaceId, ref, submission);
  if (earlier === 'conflict') throw identifierConflict();
  if (earlier) return earlier;
  try {
    return await payments.submitAuthorization(workspaceId, ref, submission);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    // A copy sent at the same moment got there first: the order refused this one because of it.
    const copy = await payments.samePayment(workspaceId, ref, submission);
    if (copy === 'conflict') throw identifierConflict();
    if (copy) return copy;
    if (error.code === 'invalid_payment') return { refused: error.message };
    throw error;
  }
}

const identifierConflict = () =>
  new AppError(
    'payment_identifier_conflict',
    'This payment identifier already names another payment of this order. Use a new identifier for a new payment; send the same payment again to get its answer.',
  );

/** 402 with both spellings of what the order asks for; an order that cannot be paid gets its error. */
async function paymentRequired(
  reply: FastifyReply,
  services: X402Services,
  workspaceId: WorkspaceId,
  ref: OrderRef,
  error: string,
) {
  const { payments, orderStates } = services;
  const state = await orderStates.read(workspaceId, ref, () => payments.readOrder(workspaceId, ref));
  const now = services.clock.now();
  const order = payments.judgeOrder(state, now);
  const requirements = requirementsOf(order, now);
  const resource = { url: resourceUrl(services, workspaceId, ref), description: order.description };
  reply.header('PAYMENT-REQUIRED', v2PaymentRequiredHeader(requirements, resource, error));
  return reply.code(402).send({ ...v1PaymentRequired(requirements, resource, error), requestId: reply.request.id });
}

/** The x402 resource URL of an order, as its 402 names it. */
function resourceUrl(services: X402RouteDeps, workspaceId: WorkspaceId, ref: OrderRef): string {
  const path = ref.kind === 'invoice' ? ref.id : `credit-purchases/${ref.id}`;
  return `${services.config.publicBaseUrl.origin}/w/${workspaceId}/x402/${path}`;
}
