import type { InvoiceSnapshot } from './event.js';

const WORKSPACE = 'ws_01jd6q0b7n3k9m2x4t8v5c1r6p';
const INVOICE = 'inv_01jd6q5v0kz7r3x9m2t4b8n1c6';
const WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** The invoice an automation created, as GET /invoices/{id} showed it when the event committed. */
const SCHEDULED_INVOICE: InvoiceSnapshot & { automationId: string; occurrence: number } = {
  id: INVOICE,
  number: 'INV-000044',
  status: 'open',
  amount: '250.000000',
  currency: 'USDC',
  network: null,
  expiresIn: 432000,
  expiresAt: '2099-02-05T09:00:00.000Z',
  linkVersion: 1,
  externalId: 'retainer-2099-01-31',
  description: 'Design retainer, one month',
  successUrl: null,
  cancelUrl: null,
  payTo: WALLET,
  url: `https://pay.example.com/w/${WORKSPACE}/x402/${INVOICE}`,
  checkoutUrl: `https://pay.example.com/w/${WORKSPACE}/i/${INVOICE}`,
  createdAt: '2099-01-31T09:00:00.000Z',
  updatedAt: '2099-01-31T09:00:00.000Z',
  paidAt: null,
  expiredAt: null,
  cancelledAt: null,
  automationId: 'aut_01jd6pz3x8m1k5t7v2c9n4b6r0',
  occurrence: 1,
  archived: false,
};

/** A payment intent as GET /payment-intents/{id} showed it when it succeeded. */
const SUCCEEDED_INTENT = {
  id: 'pi_01jd6q9e4w2n7k1x5m3t8v6b0c',
  status: 'succeeded',
  failureReason: null,
  invoiceId: 'inv_01jd6q5v0kz7r3x9m2t4b8n1c5',
  invoiceNumber: 'INV-000042',
  externalId: 'order-1042',
  method: 'authorization',
  network: 'base-sepolia',
  amount: '12.500000',
  amountReceived: '12.500000',
  shortfall: null,
  overpaid: null,
  currency: 'USDC',
  recipient: WALLET,
  payer: '0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF',
  transactionHash: '0x8d2c3a4f5e6b7a8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c',
  blockNumber: '18342017',
  submittedAt: '2026-11-14T09:41:02.000Z',
  finishedAt: '2026-11-14T09:41:12.000Z',
  overpayment: false,
};

/**
 * One event of each kind a webhook carries, as the feed serves it (`id`, `type`, `createdAt`, the objects
 * it is about, `data`). A webhook body is the same event with `workspaceId` and `test` added.
 */
export const EVENT_EXAMPLES = {
  'payment_intent.succeeded': {
    id: '1043',
    type: 'payment_intent.succeeded',
    createdAt: '2026-11-14T09:41:12.000Z',
    invoiceId: SUCCEEDED_INTENT.invoiceId,
    paymentIntentId: SUCCEEDED_INTENT.id,
    data: {
      paymentIntent: SUCCEEDED_INTENT,
      invoice: { id: SUCCEEDED_INTENT.invoiceId, number: 'INV-000042', externalId: 'order-1042' },
    },
  },
  'payment_intent.reverted': {
    id: '1044',
    type: 'payment_intent.reverted',
    createdAt: '2026-11-14T09:43:20.000Z',
    invoiceId: SUCCEEDED_INTENT.invoiceId,
    paymentIntentId: SUCCEEDED_INTENT.id,
    data: {
      paymentIntent: { ...SUCCEEDED_INTENT, status: 'reverted', finishedAt: '2026-11-14T09:43:20.000Z' },
      invoice: { id: SUCCEEDED_INTENT.invoiceId, number: 'INV-000042', externalId: 'order-1042' },
    },
  },
  'invoice.scheduled': {
    id: '1045',
    type: 'invoice.scheduled',
    createdAt: '2099-01-31T09:00:00.000Z',
    invoiceId: INVOICE,
    data: { invoice: SCHEDULED_INVOICE, automationId: SCHEDULED_INVOICE.automationId, occurrence: 1 },
  },
} as const;

export const EXAMPLE_WORKSPACE_ID = WORKSPACE;
