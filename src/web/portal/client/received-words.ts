// A received transfer in the portal's words: why it paid nothing, and what applying it to an invoice of
// another amount means. No DOM here, so that the words can be checked without a browser.
import type { ReceivedTransfer } from './api-types.js';

/** USDC as the API writes it ("12.500000") in millionths, exactly: no float ever touches an amount. */
export function micros(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole || '0') * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
}

/** Millionths of USDC as people read them: "12.50", "0.000001". */
export function usdc(value: bigint): string {
  const fraction = (value % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${value / 1_000_000n}.${fraction}`;
}

/**
 * Why the transfer paid no invoice by itself. `numberOf` gives an invoice's number (INV-…) when the
 * page knows it; otherwise the words say "the invoice".
 */
export function reasonWords(
  transfer: Pick<ReceivedTransfer, 'reason' | 'invoiceId'>,
  numberOf: (invoiceId: string) => string | undefined,
): string {
  const named = transfer.invoiceId ? numberOf(transfer.invoiceId) : undefined;
  switch (transfer.reason) {
    case 'ambiguous':
      return 'Two or more open invoices have this amount';
    case 'no_matching_invoice':
      return 'No open invoice has this amount';
    case 'amount_mismatch':
      return `Sent for ${named ?? 'an invoice'} but the amount differs`;
    case 'late':
      return `Arrived after the deadline of ${named ?? 'the invoice of this amount'}`;
    default:
      // A reason a newer service added: its code is still better than nothing.
      return String(transfer.reason).replaceAll('_', ' ');
  }
}

/** How the transfer's amount compares with an invoice's: what applying it records besides "paid". */
export type AmountFit =
  | { readonly kind: 'exact' }
  | { readonly kind: 'short'; readonly by: string }
  | { readonly kind: 'over'; readonly by: string };

export function amountFit(transferAmount: string, invoiceAmount: string): AmountFit {
  const difference = micros(transferAmount) - micros(invoiceAmount);
  if (difference === 0n) return { kind: 'exact' };
  return difference < 0n ? { kind: 'short', by: usdc(-difference) } : { kind: 'over', by: usdc(difference) };
}

/**
 * The question asked before a short transfer pays an invoice, with both amounts: answered yes, the
 * apply is sent with `acceptShortfall: true`, never before.
 */
export function shortfallQuestion(
  transferAmount: string,
  invoice: { readonly number: string; readonly amount: string },
): string {
  const short = usdc(micros(invoice.amount) - micros(transferAmount));
  return (
    `This transfer of ${usdc(micros(transferAmount))} USDC is ${short} USDC short of ${invoice.number}, ` +
    `which is for ${usdc(micros(invoice.amount))} USDC.\n\n` +
    `Mark ${invoice.number} paid with what arrived? The payment records the shortfall; asking the buyer for the rest is up to you.`
  );
}

/** What the page says once the transfer paid the invoice. */
export function appliedWords(transferAmount: string, invoice: { readonly number: string; readonly amount: string }) {
  const fit = amountFit(transferAmount, invoice.amount);
  if (fit.kind === 'short')
    return `${invoice.number} is paid, ${fit.by} USDC short: the payment records the shortfall.`;
  if (fit.kind === 'over')
    return `${invoice.number} is paid; the ${fit.by} USDC above its amount is recorded as overpaid.`;
  return `${invoice.number} is paid with this transfer.`;
}
