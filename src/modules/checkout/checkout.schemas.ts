import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { Nullable, LatestPaymentAttempt, PaymentNetworkView, Timestamp } from '../../http/common.schemas.js';
import type { ErrorCode } from '../../shared/errors.js';
import { INVOICE_STATUSES, PayTo } from '../invoices/index.js';

const ADDRESS = '^0x[0-9a-fA-F]{40}$';
const BYTES32 = '^0x[0-9a-fA-F]{64}$';
const UINT256 = '^[0-9]{1,78}$';

/** Loose on purpose: a malformed id is simply an invoice that does not exist (404), like any other. */
export const CheckoutParams = Type.Object({
  workspaceId: Type.String({ maxLength: 64, description: 'Workspace id (`ws_…`).' }),
  invoiceId: Type.String({ maxLength: 64, description: 'Invoice id (`inv_…`).' }),
});

/** What a buyer's receipt shows beyond the invoice itself. */
export const CheckoutReceipt = Type.Object({
  receiptNumber: Type.String({
    description: 'RCT-000001, …: the receipt that GET /w/{workspaceId}/i/{invoiceId}/receipt.pdf downloads.',
  }),
  pdfUrl: Type.String({
    description: 'The receipt as a PDF: a path on this service, /w/{workspaceId}/i/{invoiceId}/receipt.pdf.',
  }),
  paidAt: Timestamp,
  network: Type.String({ description: 'The `name` of the network the invoice was paid on.' }),
  chainId: Type.Integer(),
  payer: Nullable(Type.String({ description: 'The address the payment came from.' })),
  transactionHash: Type.String({ description: 'The transaction that paid the invoice.' }),
  transactionUrl: Nullable(
    Type.String({
      description: "The transaction on the network's block explorer; null when the operator configured none.",
    }),
  ),
});

/**
 * The latest payment attempt as the checkout page reads it: also whether the chain has shown it, which
 * is what may change the page (docs/checkout.md, What the buyer sees after pasting a hash).
 */
export const CheckoutPaymentAttempt = Type.Object({
  ...LatestPaymentAttempt.properties,
  foundAt: Type.Union([Timestamp, Type.Null()], {
    description:
      'When a transfer paying the invoice was seen in a block (for an authorization: when it was accepted). Null while a ' +
      'submitted hash is still looked for, and for one that failed unseen: such a hash holds nothing, the invoice stays ' +
      '`open` and payable by any other way.',
  }),
});

/** One network's payment details on the checkout link: also whether paying without gas is taken there now. */
export const CheckoutNetworkView = Type.Object({
  ...PaymentNetworkView.properties,
  gasless: Type.Boolean({
    description:
      'Whether a signed authorization (paying without gas, the wallet button) is taken on this network now. False while the ' +
      "service cannot pay a settlement's network fee there: `POST …/authorizations` would be refused with `reason: " +
      'relayer_unfunded`, and the page offers the plain transfer only. A plain transfer pays either way.',
  }),
});

export const CheckoutView = Type.Object({
  invoiceId: Type.String(),
  number: Type.String({ description: 'INV-000001, …' }),
  merchantName: Type.String({ description: 'The workspace name.' }),
  merchantDescription: Type.String({ description: 'The workspace description, shown to buyers; may be empty.' }),
  merchantSupportContact: Nullable(
    Type.String({
      description: 'Where the buyer asks the merchant: an email address or an https URL; null when none is set.',
    }),
  ),
  merchantAccentColor: Nullable(
    Type.String({
      description: "The merchant's colour (#rrggbb) for the page's main buttons, kept readable; null: the default.",
    }),
  ),
  merchantNotified: Type.Boolean({
    description:
      "Whether a payment is sent to the merchant's webhook endpoint as it lands (one is set up and enabled): the paid page says the merchant has been notified only then.",
  }),
  status: Type.Unsafe<(typeof INVOICE_STATUSES)[number]>({
    type: 'string',
    enum: [...INVOICE_STATUSES],
    description: 'An open invoice past its deadline reads `expired`.',
  }),
  amount: Type.String({ description: 'USDC, always with 6 decimals ("12.500000"). Pay exactly this.' }),
  description: Nullable(
    Type.String({ description: "What the buyer pays for, in the merchant's words (the invoice's)." }),
  ),
  currency: Type.Literal('USDC'),
  recipient: Nullable(
    Type.String({
      description:
        'The workspace wallet (checksummed): the only address that can be paid. Null when `recipientChanged`: there is no address to pay.',
    }),
  ),
  recipientChanged: Type.Boolean({
    description:
      'True when the link was issued while the merchant received at another address (an open or expired invoice only): it takes ' +
      'no payment, and cannot be renewed; `recipient` and `authorizationNonce` are null and `networks` empty. The buyer needs a new invoice.',
  }),
  expiresAt: Timestamp,
  serverTime: Type.String({
    format: 'date-time',
    description: "The server's clock, to show the time left without trusting the buyer's clock.",
  }),
  linkVersion: Type.Integer({ description: 'Grows with each renewal; payments for older versions are refused.' }),
  authorizationNonce: Nullable(
    Type.String({
      description:
        'The EIP-3009 `nonce` an authorization must carry: keccak256(abi.encode(invoiceId, linkVersion)) with its first four bytes replaced by 0x4f524452 ("ORDR"). Null unless open.',
    }),
  ),
  networks: Type.Array(CheckoutNetworkView, {
    description: 'Where the invoice can be paid; empty unless the status is `open`.',
  }),
  successUrl: Nullable(Type.String()),
  cancelUrl: Nullable(Type.String({ description: '"Back to merchant". Following it does not cancel the invoice.' })),
  payment: Type.Union([CheckoutPaymentAttempt, Type.Null()], { description: 'The latest payment attempt, or null.' }),
  receipt: Type.Union([CheckoutReceipt, Type.Null()], {
    description: 'Once the invoice is paid: when, on which network, by which transaction. Null until then.',
  }),
});

export const TransactionBody = Type.Object(
  {
    network: Type.String({ maxLength: 64, description: 'A `name` from the payment details.' }),
    txHash: Type.String({
      pattern: BYTES32,
      description: 'Hash of the transaction that transferred exactly `amount` USDC to `recipient`.',
    }),
  },
  { additionalProperties: false },
);

export const AuthorizationBody = Type.Object(
  {
    network: Type.String({ maxLength: 64, description: 'A `name` from the payment details.' }),
    authorization: Type.Object(
      {
        from: Type.String({ pattern: ADDRESS, description: 'The payer.' }),
        to: Type.String({ pattern: ADDRESS, description: 'Must be `recipient`.' }),
        value: Type.String({ pattern: UINT256, description: 'Micro-units; exactly the amount.' }),
        validAfter: Type.String({ pattern: UINT256, description: 'Unix seconds.' }),
        validBefore: Type.String({
          pattern: UINT256,
          description: 'Unix seconds; leave a minute or more for settlement.',
        }),
        nonce: Type.String({ pattern: BYTES32, description: 'The `authorizationNonce` of the payment details.' }),
      },
      { additionalProperties: false },
    ),
    signature: Type.String({
      pattern: '^0x[0-9a-fA-F]{130}$',
      description: "The payer's 65-byte EIP-712 signature of TransferWithAuthorization.",
    }),
  },
  { additionalProperties: false },
);

/**
 * The bodies of the checkout link's own payments: also `payTo`, as POST /invoices takes it (the workspace
 * wallet, which changes nothing, or 403). A credit purchase's payments take the plain bodies: they pay the operator.
 */
export const CheckoutTransactionBody = Type.Object(
  { ...TransactionBody.properties, payTo: Type.Optional(PayTo) },
  { additionalProperties: false },
);
export const CheckoutAuthorizationBody = Type.Object(
  { ...AuthorizationBody.properties, payTo: Type.Optional(PayTo) },
  { additionalProperties: false },
);

export const SubmittedPayment = Type.Object({
  paymentIntentId: Type.String({ description: 'Follow it in `payment` of the payment details.' }),
  status: Type.Literal('processing'),
});

/** Schema failures of these fields answer with the field's own code. */
export const CHECKOUT_FIELD_CODES = { network: 'unsupported_network' } as const;

/** What a submitted payment (an authorization or a transaction hash) can be refused for, whatever it pays. */
export const PAYMENT_BODY_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'unknown_field',
  'invalid_json',
  'unsupported_network',
  'invalid_payment',
  // The network could not be read (every RPC provider failing): nothing was signed or sent; retry.
  'service_unavailable',
];

/** A string in the API document; the handler sends a stream, which Fastify passes through unserialized. */
export const CheckoutEventStream = Type.Unsafe<Readable>({
  type: 'string',
  description:
    'text/event-stream (server-sent events): a `retry:` line, then an `event: state` whose `data` is the JSON of the payment details ' +
    '(as GET /w/{workspaceId}/i/{invoiceId} answers), and another after every change of the invoice and at its deadline. ' +
    'A comment line (`: heartbeat`) every 15 seconds. The stream ends after a `state` whose status is paid, expired or cancelled.',
});

/** The receipt as a PDF document. */
export const ReceiptPdfDocument = Type.Unsafe<Buffer>({
  type: 'string',
  format: 'binary',
  description: 'The receipt as an A4 PDF document, named RCT-000001.pdf, …',
});
