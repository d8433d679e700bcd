import type { OperationExamples } from '../../http/openapi-examples.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';

const ORIGIN = 'https://pay.example.com';

/** An open invoice, as GET /invoices/{id} shows it. */
export const INVOICE_EXAMPLE = {
  id: EXAMPLE_IDS.invoice,
  number: 'INV-000042',
  status: 'open',
  amount: '12.500000',
  currency: 'USDC',
  network: null,
  expiresIn: 86400,
  expiresAt: '2026-11-15T09:30:00.000Z',
  linkVersion: 1,
  externalId: 'order-1042',
  description: 'Blue glazed teapot, 1 l',
  successUrl: 'https://shop.example.com/thanks',
  cancelUrl: 'https://shop.example.com/cart',
  payTo: EXAMPLE_IDS.wallet,
  url: `${ORIGIN}/w/${EXAMPLE_IDS.workspace}/x402/${EXAMPLE_IDS.invoice}`,
  checkoutUrl: `${ORIGIN}/w/${EXAMPLE_IDS.workspace}/i/${EXAMPLE_IDS.invoice}`,
  createdAt: '2026-11-14T09:30:00.000Z',
  updatedAt: '2026-11-14T09:30:00.000Z',
  paidAt: null,
  expiredAt: null,
  cancelledAt: null,
  automationId: null,
  occurrence: null,
  archived: false,
} as const;

export const PAID_INVOICE_EXAMPLE = {
  ...INVOICE_EXAMPLE,
  status: 'paid',
  network: 'base-sepolia',
  updatedAt: '2026-11-14T09:41:12.000Z',
  paidAt: '2026-11-14T09:41:12.000Z',
} as const;

const CREATE_BODY = {
  amount: '12.50',
  expiresIn: 86400,
  externalId: 'order-1042',
  description: 'Blue glazed teapot, 1 l',
  successUrl: 'https://shop.example.com/thanks',
  cancelUrl: 'https://shop.example.com/cart',
};

export const invoiceExamples = {
  create: { request: CREATE_BODY, response: INVOICE_EXAMPLE },
  list: { response: { invoices: [PAID_INVOICE_EXAMPLE], nextCursor: '41' } },
  get: { response: PAID_INVOICE_EXAMPLE },
  cancel: {
    response: {
      ...INVOICE_EXAMPLE,
      status: 'cancelled',
      updatedAt: '2026-11-14T10:02:00.000Z',
      cancelledAt: '2026-11-14T10:02:00.000Z',
    },
  },
  renew: {
    request: { expiresIn: 432000 },
    response: {
      ...INVOICE_EXAMPLE,
      expiresIn: 432000,
      expiresAt: '2026-11-21T10:05:00.000Z',
      linkVersion: 2,
      updatedAt: '2026-11-16T10:05:00.000Z',
    },
  },
} satisfies Record<string, OperationExamples>;
