import { Type } from '@sinclair/typebox';
import { ID_PATTERN } from '../../shared/ids.js';
import { Nullable } from '../../http/common.schemas.js';

export const PaymentIntentView = Type.Object({
  id: Type.String({ description: 'Payment intent id (`pi_…`).' }),
  status: Type.Unsafe<'processing' | 'succeeded' | 'failed' | 'reverted'>({
    type: 'string',
    enum: ['processing', 'succeeded', 'failed', 'reverted'],
    description:
      '`reverted`: it had succeeded, then a reorganisation of the chain took its transaction out before it was final; the invoice is payable again.',
  }),
  failureReason: Nullable(
    Type.String({
      description:
        'Why a failed attempt failed: amount_mismatch, recipient_mismatch, wrong_token, expired, reverted, already_used, not_found, predates_invoice, …',
    }),
  ),
  invoiceId: Type.String(),
  invoiceNumber: Nullable(Type.String()),
  externalId: Nullable(Type.String({ description: "The merchant's order reference: the invoice's externalId." })),
  method: Type.Unsafe<'authorization' | 'transaction'>({ type: 'string', enum: ['authorization', 'transaction'] }),
  network: Type.String(),
  amount: Type.String({ description: 'USDC with 6 decimals.' }),
  amountReceived: Type.String({
    description: 'What the transfer brought: the amount, unless you applied a received transfer of another amount.',
  }),
  shortfall: Nullable(
    Type.String({ description: 'How much less than the amount arrived (a short transfer you accepted).' }),
  ),
  overpaid: Nullable(Type.String({ description: 'How much more than the amount arrived; settle it with the payer.' })),
  currency: Type.Literal('USDC'),
  recipient: Type.String({ description: 'The receiving address recorded for this payment.' }),
  payer: Nullable(Type.String()),
  transactionHash: Nullable(Type.String()),
  blockNumber: Nullable(Type.String()),
  submittedAt: Type.String({ format: 'date-time' }),
  finishedAt: Nullable(Type.String({ format: 'date-time' })),
  overpayment: Type.Boolean({
    description:
      'True for a payment that landed after another payment had paid the invoice (or after it was cancelled). ' +
      'It is recorded and listed in GET /issues; this service makes no refunds, so settle it with the payer yourself. ' +
      'Fulfil an order from the payment whose `overpayment` is false.',
  }),
});

export const PaymentIntentParams = Type.Object({
  workspaceId: Type.String({ pattern: ID_PATTERN }),
  paymentIntentId: Type.String({ maxLength: 64 }),
});
