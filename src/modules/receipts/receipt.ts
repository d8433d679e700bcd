import type { InvoiceLabel, PaymentIntent } from '../payment-engine/index.js';

/** `RCT-000123`: the receipt's own sequence per workspace, apart from the invoice numbers. */
export function formatReceiptNumber(number: bigint): string {
  return `RCT-${number.toString().padStart(6, '0')}`;
}

/** Everything a receipt shows: what was paid, to whom, how, and how to check it on the chain. */
export interface Receipt {
  readonly receiptNumber: string;
  readonly invoiceId: string;
  readonly invoice: InvoiceLabel;
  readonly payment: PaymentIntent;
  /** Where the buyer asks the merchant: an email address or an https URL (the workspace's profile). */
  readonly merchant: { readonly name: string; readonly supportContact: string | null };
  readonly network: {
    readonly name: string;
    readonly chainId: number;
    readonly label: string;
    readonly testnet: boolean;
  };
  /** The transaction on the network's block explorer, when the operator configured one. */
  readonly transactionUrl: string | null;
}
