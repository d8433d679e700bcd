import type { InvoiceStatus } from '../../modules/invoices/index.js';
import type { FailureReason } from '../../modules/payment-engine/index.js';

/**
 * Everything the buyer reads about a status or a failed attempt, in one place. The server renders with
 * it and the browser script bundles this same module, so a live update says exactly what a reload
 * would. Records, so a new status or failure reason fails to compile until it has a sentence. Pure and
 * with type-only imports: it goes into the browser bundle as it is.
 */
export const STATUS_LABELS: Readonly<Record<ShownStatus, string>> = {
  open: 'Awaiting payment',
  processing: 'Verifying payment',
  paid: 'Paid',
  expired: 'Expired',
  cancelled: 'Cancelled',
  unpayable: 'Cannot be paid',
};

/**
 * What the page says the link is: the invoice's status, or `unpayable` for a link issued while the
 * merchant received at another address (it takes no payment, whatever its deadline).
 */
export type ShownStatus = InvoiceStatus | 'unpayable';

/** The shown status of payment details at `nowMs` (the server's clock): an open invoice past its deadline is expired. */
export function shownStatus(
  details: { readonly status: InvoiceStatus; readonly recipientChanged: boolean; readonly expiresAt: string },
  nowMs: number,
): ShownStatus {
  if (details.recipientChanged) return 'unpayable';
  return details.status === 'open' && Date.parse(details.expiresAt) <= nowMs ? 'expired' : details.status;
}

export const FAILURE_TEXTS: Readonly<Record<FailureReason, string>> = {
  amount_mismatch: 'the transaction did not send exactly the invoice amount.',
  recipient_mismatch: 'the transaction did not pay the address shown here.',
  wrong_token: 'the transaction moved no USDC on this network.',
  expired: 'it arrived after the payment deadline.',
  reverted: 'the transaction failed on-chain.',
  already_used: 'that transfer has already paid an invoice.',
  not_found: 'the transaction was not found on this network.',
  predates_invoice: 'the transaction is older than this invoice.',
  insufficient_balance: 'the wallet did not hold enough USDC.',
  invalid_signature: 'the wallet signature was not valid.',
  settlement_failed: 'the transfer could not be completed on-chain.',
  authorized_for_another_order: 'that transfer was authorized for another invoice and pays that one.',
};

/** Shown for a failure reason the table above does not know yet: a sentence, never the bare code. */
export const UNKNOWN_FAILURE_TEXT = 'the payment could not be completed.';

/** What the page knows of the latest payment attempt (the payment details' `payment`). */
export interface AttemptState {
  readonly method: 'authorization' | 'transaction';
  readonly status: 'processing' | 'succeeded' | 'failed' | 'reverted';
  readonly failureReason: string | null;
  readonly transactionHash: string | null;
  readonly foundAt: string | null;
}

/** What the page says next to the hash field: the hash is not on the chain yet, or it was refused. */
export interface HashNote {
  readonly kind: 'unseen' | 'refused';
  readonly text: string;
}

/**
 * What the page says next to the hash field about the last hash submitted for an open invoice, or
 * nothing. A hash not seen on the chain yet holds nothing: the page says so and keeps every way to pay;
 * one that does not pay the invoice says why. A hash seen paying it turns the invoice `processing`,
 * which the status notice tells instead.
 */
export function hashNote(payment: AttemptState | null): HashNote | undefined {
  if (payment?.method !== 'transaction' || !payment.transactionHash) return undefined;
  const hash = shortHash(payment.transactionHash);
  if (payment.status === 'processing' && payment.foundAt === null)
    return {
      kind: 'unseen',
      text:
        `Looking for transaction ${hash} on the network. Until it is found there, nothing is paid; this page ` +
        'updates by itself when it is. If the hash is wrong, paste the right one, or pay another way.',
    };
  if (payment.status !== 'failed') return undefined;
  const reason = payment.failureReason ?? '';
  const why = (FAILURE_TEXTS as Readonly<Record<string, string>>)[reason] ?? UNKNOWN_FAILURE_TEXT;
  // A hash no node knows moved no money; any other may have.
  const moneyMoved =
    reason === 'not_found' ? '' : ' If money left your wallet for it, contact the merchant before paying again.';
  return {
    kind: 'refused',
    text: `Transaction ${hash} does not pay this invoice: ${why} The invoice is still unpaid: paste another hash or pay another way.${moneyMoved}`,
  };
}

/**
 * Time left as people read a timer: `4d 23:59:58`, `1:05:09`, `4:07`, `0:00`. The live countdown
 * (client/checkout.ts) uses this same function, so it agrees with the server's first paint.
 */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  if (days > 0) return `${days}d ${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}:${seconds}`;
  if (hours > 0) return `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`;
  return `${minutes}:${seconds}`;
}

export { displayAmount } from '../../shared/money.js';

/** A deadline or payment time for the first paint, in UTC (the server cannot know the buyer's zone; the script localises it). */
export function formatInstantUtc(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** `0x8f3a…c2d1`-style: enough to recognise a transaction; the full hash stays in the title and the copy. */
export function shortHash(hash: string): string {
  return hash.length > 18 ? `${hash.slice(0, 10)}…${hash.slice(-8)}` : hash;
}
