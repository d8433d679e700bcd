import type { OperationExamples } from '../../http/openapi-examples.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';
import { INVOICE_EXAMPLE } from '../invoices/index.js';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

/** What a payer sends to pay with an EIP-3009 authorization (checkout, credit purchases). */
const AUTHORIZATION_EXAMPLE = {
  network: 'base-sepolia',
  authorization: {
    from: EXAMPLE_IDS.payer,
    to: EXAMPLE_IDS.wallet,
    value: '12500000',
    validAfter: '0',
    validBefore: '1794649860',
    nonce: '0x9a4c1e2f3b5d6a7c8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d',
  },
  signature: `0x${'4f'.repeat(64)}1b`,
};

const TRANSACTION_EXAMPLE = { network: 'base-sepolia', txHash: EXAMPLE_IDS.transaction };
const SUBMITTED = { paymentIntentId: EXAMPLE_IDS.paymentIntent, status: 'processing' } as const;

const CHECKOUT_EXAMPLE = {
  invoiceId: EXAMPLE_IDS.invoice,
  number: 'INV-000042',
  merchantName: 'Example Shop',
  merchantDescription: 'Handmade ceramics.',
  merchantSupportContact: 'help@ceramics.example',
  merchantAccentColor: '#0f766e',
  merchantNotified: true,
  status: 'open',
  amount: '12.500000',
  description: INVOICE_EXAMPLE.description,
  currency: 'USDC',
  recipient: EXAMPLE_IDS.wallet,
  recipientChanged: false,
  expiresAt: INVOICE_EXAMPLE.expiresAt,
  serverTime: '2026-11-14T09:35:00.000Z',
  linkVersion: 1,
  authorizationNonce: AUTHORIZATION_EXAMPLE.authorization.nonce,
  networks: [
    {
      name: 'base-sepolia',
      chainId: 84532,
      token: USDC,
      tokenName: 'USDC',
      tokenVersion: '2',
      confirmations: 2,
      paymentUri: `ethereum:${USDC}@84532/transfer?address=${EXAMPLE_IDS.wallet}&uint256=12500000`,
      gasless: true,
    },
  ],
  successUrl: INVOICE_EXAMPLE.successUrl,
  cancelUrl: INVOICE_EXAMPLE.cancelUrl,
  // A hash the buyer pasted that the chain has not shown yet: it holds nothing, the invoice stays open.
  payment: {
    id: EXAMPLE_IDS.paymentIntent,
    status: 'processing',
    failureReason: null,
    method: 'transaction',
    network: 'base-sepolia',
    transactionHash: EXAMPLE_IDS.transaction,
    submittedAt: '2026-11-14T09:34:40.000Z',
    finishedAt: null,
    foundAt: null,
  },
  receipt: null,
};

export const checkoutExamples = {
  checkout: { response: CHECKOUT_EXAMPLE },
  checkoutEvents: {
    response: `retry: 3000\n\nevent: state\ndata: ${JSON.stringify(CHECKOUT_EXAMPLE)}\n\n: heartbeat\n\n`,
  },
  checkoutTransaction: { request: TRANSACTION_EXAMPLE, response: SUBMITTED },
  checkoutAuthorization: { request: AUTHORIZATION_EXAMPLE, response: SUBMITTED },
  purchaseAuthorization: {
    request: {
      ...AUTHORIZATION_EXAMPLE,
      authorization: {
        ...AUTHORIZATION_EXAMPLE.authorization,
        to: '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
        value: '10000000',
        nonce: '0x6f1c0a2d3b4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8',
      },
    },
    response: SUBMITTED,
  },
  purchaseTransaction: { request: TRANSACTION_EXAMPLE, response: SUBMITTED },
} satisfies Record<string, OperationExamples>;
