import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../http/common.schemas.js';

export const ReceiptView = Type.Object({
  receiptNumber: Type.String({
    description:
      'RCT-000001, … per workspace, in the order invoices were paid; never reused. A payment that a reorganisation of the chain ' +
      'takes back voids its receipt, and paying the invoice again issues a new number.',
  }),
  invoiceId: Type.String(),
  number: Type.String({ description: 'The invoice number (INV-000042).' }),
  description: Nullable(Type.String({ description: "What was paid for: the invoice's description." })),
  merchant: Type.Object({
    name: Type.String({ description: "The workspace's name, as the buyer saw it." }),
    supportContact: Nullable(
      Type.String({ description: "Where the buyer asks the merchant: the workspace's email address or https URL." }),
    ),
  }),
  amount: Type.String({ description: 'USDC with 6 decimals.' }),
  currency: Type.Literal('USDC'),
  network: Type.String(),
  chainId: Type.Integer(),
  payer: Nullable(Type.String()),
  recipient: Type.String(),
  transactionHash: Type.String(),
  transactionUrl: Nullable(
    Type.String({ description: "The transaction on the network's block explorer; null when none is configured." }),
  ),
  blockNumber: Type.String(),
  paidAt: Type.String({ format: 'date-time' }),
  paymentIntentId: Type.String(),
  externalId: Nullable(Type.String()),
});

/** The route's answer: the JSON above, or (`Accept: application/pdf`) the same receipt as PDF bytes. */
export const ReceiptAnswer = Type.Unsafe<Static<typeof ReceiptView> | Buffer>(ReceiptView);
