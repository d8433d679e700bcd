import type { CheckoutDetails } from '../../src/web/checkout/checkout.page.js';

/** One network of an invoice's payment details, as the checkout page is given it. */
export const DETAILS_NETWORK = {
  name: 'base-sepolia',
  chainId: 84532,
  token: `0x${'1'.repeat(40)}`,
  tokenName: 'USDC',
  tokenVersion: '2',
  confirmations: 1,
  paymentUri: `ethereum:0x${'1'.repeat(40)}@84532/transfer?address=0x${'2'.repeat(40)}&uint256=1000000`,
  gasless: true,
} as const;

/** An open invoice's payment details with nothing paid yet, for tests of the page drawn from them. */
export function openInvoiceDetails(changes: Partial<CheckoutDetails> = {}): CheckoutDetails {
  return {
    invoiceId: 'inv_test',
    number: 'INV-000001',
    merchantName: 'Shop',
    merchantDescription: '',
    merchantSupportContact: null,
    merchantAccentColor: null,
    merchantNotified: false,
    status: 'open',
    amount: '1.000000',
    description: null,
    currency: 'USDC',
    recipient: `0x${'2'.repeat(40)}`,
    recipientChanged: false,
    expiresAt: '2030-01-01T01:00:00.000Z',
    serverTime: '2030-01-01T00:00:00.000Z',
    linkVersion: 1,
    authorizationNonce: `0x${'3'.repeat(64)}`,
    networks: [DETAILS_NETWORK],
    successUrl: null,
    cancelUrl: null,
    payment: null,
    receipt: null,
    ...changes,
  };
}
