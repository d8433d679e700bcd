import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { prefersOverJson } from '../../http/accept.js';
import { errorResponses } from '../../http/error-examples.js';
import { StreamSlots } from '../../http/event-stream.js';
import type { OperationDocs } from '../../http/openapi-examples.js';
import { httpProcessesOf, limitPerClientIp, type ProcessCount } from '../../http/rate-limiter.js';
import type { CheckoutService } from './checkout.service.js';
import type { Clock } from '../../shared/clock.js';
import type { Config } from '../../config/config.js';
import type { PaymentService } from '../payment-engine/index.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { AppError, type ErrorCode } from '../../shared/errors.js';
import type { InvoiceId } from '../invoices/index.js';
import { receiptAttachment, receiptPdf, type ReceiptService } from '../receipts/index.js';
import type { TransferAuthorization } from '../../chain/chain-port.js';
import { streamInvoiceState } from './checkout-events.js';
import { invoiceOrder } from '../payment-engine/index.js';
import {
  CHECKOUT_FIELD_CODES,
  PAYMENT_BODY_ERRORS,
  CheckoutAuthorizationBody,
  CheckoutEventStream,
  CheckoutParams,
  CheckoutTransactionBody,
  CheckoutView,
  ReceiptPdfDocument,
  SubmittedPayment,
} from './checkout.schemas.js';
import { checkoutExamples } from './checkout.examples.js';

/** What these routes call. */
export interface CheckoutRouteDeps {
  readonly checkout: CheckoutService;
  readonly clock: Clock;
  readonly config: Pick<Config, 'checkoutRateLimitPerMinute'>;
  /** Present only in the local demo: the page then offers the built-in wallet. */
  readonly demoWallet?: unknown;
  readonly payments: PaymentService;
  readonly page: CheckoutPage;
  readonly receipts: ReceiptService;
  /** The HTTP processes that share the checkout limit; absent: this one alone. */
  readonly processes?: ProcessCount;
}

/**
 * The buyer's page, which src/web/checkout renders: a browser asking for the payment details gets it
 * instead of their JSON.
 */
export interface CheckoutPage {
  /** Registers the page's static files (scripts, styles). */
  registerAssets(app: FastifyInstance): Promise<void>;
  /** Answers a browser with the page for `details`, or the plain 404 page when they are undefined. */
  send(
    reply: FastifyReply,
    details: Static<typeof CheckoutView> | undefined,
    options: { readonly workspaceId: string; readonly demoWallet: boolean },
  ): FastifyReply;
}

const tags = ['Checkout'];
const PAY_TO_RULE =
  '`payTo` may be left out or name the workspace wallet (any letter case); any other value: 403 pay_to_mismatch. ' +
  'A link issued while the merchant received at another address (`recipientChanged` in the payment details) takes no payment: ' +
  '403 pay_to_mismatch.';
const PUBLIC = { security: [] as Record<string, string[]>[] };

const INVOICE_PAYABLE_ERRORS: readonly ErrorCode[] = [
  'not_found',
  'invoice_already_paid',
  'invoice_processing',
  'invoice_expired',
  'invoice_cancelled',
  'rate_limited',
];
const DETAILS_DOCS: OperationDocs = { errors: ['not_found', 'rate_limited'], examples: checkoutExamples.checkout };
const EVENTS_DOCS: OperationDocs = {
  errors: ['not_found', 'rate_limited'],
  examples: checkoutExamples.checkoutEvents,
};
/** Open event streams one client address may hold in one process (a buyer with a few tabs), and all of them. */
const MAX_STREAMS_PER_IP = 10;
const MAX_STREAMS = 2000;
const RECEIPT_DOCS: OperationDocs = {
  errors: ['not_found', 'invoice_not_paid', 'rate_limited'],
  examples: { response: '%PDF-1.3 …' },
};
const TRANSACTION_DOCS: OperationDocs = {
  errors: [...PAYMENT_BODY_ERRORS, 'pay_to_mismatch', ...INVOICE_PAYABLE_ERRORS],
  examples: checkoutExamples.checkoutTransaction,
};
const AUTHORIZATION_DOCS: OperationDocs = {
  errors: [...PAYMENT_BODY_ERRORS, 'pay_to_mismatch', ...INVOICE_PAYABLE_ERRORS],
  examples: checkoutExamples.checkoutAuthorization,
};

/**
 * The public checkout API behind the checkout link (docs/checkout.md). No API key: the invoice id is the
 * capability. Every endpoint is rate-limited per client IP, which also slows down id guessing.
 */
export function checkoutRoutes(services: CheckoutRouteDeps): FastifyPluginAsyncTypebox {
  return async (root) => {
    // The page's static files sit beside the API, outside its rate limit and its no-store rule.
    await services.page.registerAssets(root);
    await root.register(checkoutApi(services));
  };
}

function checkoutApi(services: CheckoutRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    limitPerClientIp(app, services.config.checkoutRateLimitPerMinute, httpProcessesOf(services));
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
    });
    const ids = (params: { workspaceId: string; invoiceId: string }) =>
      [params.workspaceId as WorkspaceId, params.invoiceId as InvoiceId] as const;
    const order = (params: { workspaceId: string; invoiceId: string }) =>
      [params.workspaceId as WorkspaceId, invoiceOrder(params.invoiceId as InvoiceId)] as const;

    app.get(
      '/w/:workspaceId/i/:invoiceId',
      {
        config: { docs: DETAILS_DOCS },
        schema: {
          tags,
          summary: 'Public payment details',
          description:
            'What the checkout page shows and needs: merchant, number, amount, recipient, deadline, status, the networks with an EIP-681 URI each, ' +
            'the nonce an EIP-3009 authorization must carry, and the latest payment attempt. No API key. A request that prefers text/html ' +
            '(a browser) gets the checkout page instead. Unknown ids: 404 (for a browser, a plain HTML page).',
          ...PUBLIC,
          params: CheckoutParams,
          response: { 200: CheckoutView, ...errorResponses(DETAILS_DOCS.errors) },
        },
      },
      async (request, reply) => {
        reply.header('Vary', 'Accept');
        if (!prefersHtml(request.headers.accept)) return services.checkout.details(...ids(request.params));
        const details = await services.checkout.details(...ids(request.params)).catch(unlessNotFound);
        return services.page.send(reply as FastifyReply, details, {
          workspaceId: request.params.workspaceId,
          demoWallet: services.demoWallet !== undefined,
        });
      },
    );

    const slots = new StreamSlots(MAX_STREAMS_PER_IP, MAX_STREAMS);
    // A stream lasts as long as its client stays: a shutdown ends them rather than waiting.
    app.addHook('preClose', async () => slots.endAll());
    app.get(
      '/w/:workspaceId/i/:invoiceId/events',
      {
        config: { docs: EVENTS_DOCS },
        schema: {
          tags,
          summary: 'Follow the payment details live',
          description:
            'Server-sent events (for an EventSource) with the payment details now and after every change of the invoice, so a page ' +
            'shows `paid` the moment it is recorded, without polling. Ends after a final status (paid, expired, cancelled). ' +
            'While the service cannot hear every change, the stream ends after its first event: poll GET /w/{workspaceId}/i/{invoiceId} then. ' +
            'At most 10 open streams per client address (then 429 rate_limited). No API key. Unknown ids: 404.',
          ...PUBLIC,
          params: CheckoutParams,
          produces: ['text/event-stream'],
          response: { 200: CheckoutEventStream, ...errorResponses(EVENTS_DOCS.errors) },
        },
      },
      async (request, reply) => {
        const deps = { checkout: services.checkout, payments: services.payments, clock: services.clock, slots };
        await streamInvoiceState(deps, reply as FastifyReply, request.ip, ...ids(request.params));
        return reply;
      },
    );

    app.get(
      '/w/:workspaceId/i/:invoiceId/receipt.pdf',
      {
        config: { docs: RECEIPT_DOCS },
        schema: {
          tags,
          summary: 'Download the receipt (PDF)',
          description:
            'The receipt of a paid invoice as a PDF document, for the buyer: the link on the paid checkout page. ' +
            "The same receipt as the merchant API's GET /invoices/{id}/receipt with `Accept: application/pdf`. " +
            'No API key. Unknown ids: 404; an invoice not paid yet: 409 invoice_not_paid.',
          ...PUBLIC,
          params: CheckoutParams,
          produces: ['application/pdf'],
          response: { 200: ReceiptPdfDocument, ...errorResponses(RECEIPT_DOCS.errors) },
        },
      },
      async (request, reply) => {
        const receipt = await services.receipts.read(...ids(request.params));
        const pdf = await receiptPdf(receipt);
        return reply.type('application/pdf').header('content-disposition', receiptAttachment(receipt)).send(pdf);
      },
    );

    app.post(
      '/w/:workspaceId/i/:invoiceId/transactions',
      {
        config: { fieldErrorCodes: CHECKOUT_FIELD_CODES, docs: TRANSACTION_DOCS },
        schema: {
          tags,
          summary: 'Submit a USDC transfer',
          description:
            'The buyer sent exactly `amount` USDC to `recipient` with a plain `transfer` and submits the hash. A job looks for the transaction: ' +
            'the submission alone holds nothing, so the invoice stays `open` (payable by any other path) until a transfer that pays it is found ' +
            'in a block; then it is `processing` until the confirmations, and the job checks token, recipient, exact amount, mined before the ' +
            'deadline unless submitted before it, and that a transfer pays one invoice only. A hash the network does not know is dropped ' +
            '(`not_found`) after UNSEEN_TRANSACTION_MINUTES (default 10). Submitting the same hash again answers the same attempt; at most 5 ' +
            'unseen hashes of one invoice are looked for at once (then 429). Follow the outcome in `payment` of the payment details: ' +
            'its `foundAt` stays null until the transfer is seen in a block. ' +
            'A hash that already paid an invoice: 400 invalid_payment (reason already_used). A second payment that lands after the invoice ' +
            'was paid is recorded as an overpayment. ' +
            PAY_TO_RULE,
          ...PUBLIC,
          params: CheckoutParams,
          body: CheckoutTransactionBody,
          response: { 202: SubmittedPayment, ...errorResponses(TRANSACTION_DOCS.errors) },
        },
      },
      async (request, reply) => {
        const { network, txHash, payTo } = request.body;
        const intent = await services.checkout.submitTransaction(...order(request.params), {
          network,
          txHash: txHash as `0x${string}`,
          ...(payTo !== undefined && { payTo }),
        });
        return reply.code(202).send({ paymentIntentId: intent.id, status: 'processing' as const });
      },
    );

    app.post(
      '/w/:workspaceId/i/:invoiceId/authorizations',
      {
        config: { fieldErrorCodes: CHECKOUT_FIELD_CODES, docs: AUTHORIZATION_DOCS },
        schema: {
          tags,
          summary: 'Submit a signed EIP-3009 authorization (gasless)',
          description:
            'A TransferWithAuthorization of exactly `amount` to `recipient`, signed by the buyer with the `authorizationNonce` of the payment details. ' +
            'It is checked (signature, validity window, unused nonce, balance), then settled by the service, which pays the gas. ' +
            'An authorization signed for an older link version: 400 invalid_payment (reason expired). ' +
            'One to another address than `recipient`: 403 pay_to_mismatch (reason recipient_mismatch). ' +
            PAY_TO_RULE,
          ...PUBLIC,
          params: CheckoutParams,
          body: CheckoutAuthorizationBody,
          response: { 202: SubmittedPayment, ...errorResponses(AUTHORIZATION_DOCS.errors) },
        },
      },
      async (request, reply) => {
        const { network, authorization, signature, payTo } = request.body;
        const intent = await services.checkout.submitAuthorization(...order(request.params), {
          network,
          authorization: authorization as TransferAuthorization,
          signature: signature as `0x${string}`,
          ...(payTo !== undefined && { payTo }),
        });
        return reply.code(202).send({ paymentIntentId: intent.id, status: 'processing' as const });
      },
    );
  };
}

/** The page answers an unknown id with its own 404 page; any other failure goes to the error handler. */
function unlessNotFound(error: unknown): undefined {
  if (error instanceof AppError && error.code === 'not_found') return undefined;
  throw error;
}

/** Whether to answer HTML: a browser asks for it over JSON (src/http/accept.ts). */
export const prefersHtml = (accept: string | undefined): boolean => prefersOverJson(accept, 'text/html');
