import { Type } from '@sinclair/typebox';
import { WorkspaceParams } from '../../http/common.schemas.js';
import type { CheckoutService } from './checkout.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { TransferAuthorization } from '../../chain/chain-port.js';
import {
  AuthorizationBody,
  CHECKOUT_FIELD_CODES,
  PAYMENT_BODY_ERRORS,
  SubmittedPayment,
  TransactionBody,
} from './checkout.schemas.js';
import { purchaseOrder } from '../payment-engine/index.js';
import { checkoutExamples } from './checkout.examples.js';

/** What these routes call. */
export interface PurchasePaymentRouteDeps {
  readonly checkout: CheckoutService;
}

const tags = ['Billing'];

const PurchasePaymentParams = Type.Composite([
  WorkspaceParams,
  Type.Object({ purchaseId: Type.String({ maxLength: 64, description: 'Credit purchase id (`cp_…`).' }) }),
]);

const FOLLOW =
  'Follow it in `lastPayment` of GET /credit-purchases/{id}: once it succeeds the purchase reads `paid` and its credits ' +
  'are in the balance, with a `purchase` ledger entry. A paid purchase: 409 `purchase_paid`; one being paid: 409 ' +
  '`purchase_processing`; an expired one: 409 `purchase_expired`. Without OPERATOR_WALLET: 503 `purchases_unavailable`.';

/**
 * Paying a credit purchase with the workspace's own wallet, through the engine that pays invoices: a
 * gasless EIP-3009 authorization the service settles, or the hash of a plain USDC transfer it verifies.
 * The third way is the purchase's x402 `url` (src/modules/x402).
 */
export function purchasePaymentRoutes(services: PurchasePaymentRouteDeps): SharedRoute[] {
  const order = (params: { purchaseId: string }) => purchaseOrder(params.purchaseId);
  return [
    sharedRoute({
      method: 'POST',
      url: '/credit-purchases/:purchaseId/authorizations',
      permission: 'billing:write',
      fieldErrorCodes: CHECKOUT_FIELD_CODES,
      schema: {
        tags,
        summary: 'Pay a credit purchase with a signed EIP-3009 authorization (gasless)',
        description:
          "A TransferWithAuthorization of exactly `price` to `recipient` (the operator wallet), carrying the purchase's " +
          '`payment.authorizationNonce`. It is checked (signature, validity window, unused nonce, balance) and settled by the ' +
          'service, which pays the gas. An authorization made for anything else — an invoice, another purchase — carries another ' +
          'nonce and is refused: 400 invalid_payment. One to another address: 403 pay_to_mismatch. ' +
          FOLLOW,
        params: PurchasePaymentParams,
        body: AuthorizationBody,
        response: { 202: SubmittedPayment },
      },
      errors: [
        ...PAYMENT_BODY_ERRORS,
        'pay_to_mismatch',
        'not_found',
        'purchase_paid',
        'purchase_processing',
        'purchase_expired',
        'purchases_unavailable',
      ],
      examples: checkoutExamples.purchaseAuthorization,
      portal: {
        description: 'As POST /credit-purchases/{id}/authorizations: the Billing tab pays with the browser wallet.',
      },
      example: {
        body: {
          network: 'base-sepolia',
          authorization: {
            from: `0x${'11'.repeat(20)}`,
            to: `0x${'22'.repeat(20)}`,
            value: '10000000',
            validAfter: '0',
            validBefore: '4102444800',
            nonce: `0x${'33'.repeat(32)}`,
          },
          signature: `0x${'44'.repeat(65)}`,
        },
      },
      handler: async (request, reply) => {
        const { network, authorization, signature } = request.body;
        const intent = await services.checkout.submitAuthorization(
          request.principal!.workspaceId as WorkspaceId,
          order(request.params),
          { network, authorization: authorization as TransferAuthorization, signature: signature as `0x${string}` },
        );
        return reply.code(202).send({ paymentIntentId: intent.id, status: 'processing' as const });
      },
    }),

    sharedRoute({
      method: 'POST',
      url: '/credit-purchases/:purchaseId/transactions',
      permission: 'billing:write',
      fieldErrorCodes: CHECKOUT_FIELD_CODES,
      schema: {
        tags,
        summary: 'Pay a credit purchase with a USDC transfer',
        description:
          'Send exactly `price` USDC to `recipient` with a plain `transfer` and submit the hash; a job looks for it, with the ' +
          "rules of an invoice's transfers: the purchase stays `open` until the transfer is found in a block, then `processing` " +
          "until the network's confirmations; a transfer pays one thing only (an invoice or a purchase), a transfer sent before " +
          '`expiresAt` still counts when found after it, and at most 5 unseen hashes are looked for at once (then 429). ' +
          FOLLOW,
        params: PurchasePaymentParams,
        body: TransactionBody,
        response: { 202: SubmittedPayment },
      },
      errors: [
        ...PAYMENT_BODY_ERRORS,
        'not_found',
        'purchase_paid',
        'purchase_processing',
        'purchase_expired',
        'rate_limited',
        'purchases_unavailable',
      ],
      examples: checkoutExamples.purchaseTransaction,
      portal: { description: 'As POST /credit-purchases/{id}/transactions.' },
      example: { body: { network: 'base-sepolia', txHash: `0x${'55'.repeat(32)}` } },
      handler: async (request, reply) => {
        const { network, txHash } = request.body;
        const intent = await services.checkout.submitTransaction(
          request.principal!.workspaceId as WorkspaceId,
          order(request.params),
          { network, txHash: txHash as `0x${string}` },
        );
        return reply.code(202).send({ paymentIntentId: intent.id, status: 'processing' as const });
      },
    }),
  ];
}
