import type { ReceiptStatus, TransferLog } from '../../chain/chain-port.js';

/** Named reasons a payment attempt fails (docs/checkout.md). */
export type FailureReason =
  | 'amount_mismatch'
  | 'recipient_mismatch'
  | 'wrong_token'
  | 'expired'
  | 'reverted'
  | 'already_used'
  | 'not_found'
  | 'predates_invoice'
  | 'insufficient_balance'
  | 'invalid_signature'
  | 'settlement_failed'
  /** The transfer executed a payment authorization made for another invoice or credit purchase: it pays that one. */
  | 'authorized_for_another_order';

/** A known transaction still unmined this long after submission is failed `not_found` (it was never mined in time). */
export const UNMINED_WINDOW_MS = 24 * 3600_000;
/**
 * Chain timestamps and the server clock disagree by seconds; a transfer mined more than this before the
 * invoice existed cannot be its payment (it would let any old transfer to the wallet pay a new invoice).
 */
export const CLOCK_SKEW_MS = 60_000;

/** What a submitted transaction must show to pay the invoice. */
export interface TransferExpectation {
  /** Lowercase, as stored. */
  readonly payTo: string;
  readonly amount: bigint;
  readonly confirmations: number;
  readonly submittedAt: Date;
  readonly invoiceCreatedAt: Date;
  readonly deadline: Date;
  /** A hash the node does not know is dropped (`not_found`) this long after it was submitted. */
  readonly unseenWindowMs: number;
  /**
   * Whether a transfer that executed an EIP-3009 authorization may pay this order: false when the
   * authorization was made for another (src/modules/authorization-bindings). Plain transfers are not asked.
   */
  readonly authorizedFor: (log: TransferLog & { authorizationNonce: `0x${string}` }) => boolean;
}

export type TransferVerdict =
  | { readonly kind: 'wait'; readonly why: string }
  | { readonly kind: 'fail'; readonly reason: FailureReason }
  /** Mined and paying the invoice, short of the confirmations: the invoice is being paid. */
  | { readonly kind: 'found'; readonly blockTime: Date }
  /** Every matching Transfer log, in log order: the service claims the first one no other payment holds. */
  | {
      readonly kind: 'accept';
      readonly candidates: readonly TransferLog[];
      readonly blockNumber: bigint;
      readonly blockHash: `0x${string}`;
      readonly blockTime: Date;
    };

/**
 * The verification rule of a plain USDC transfer, pure. A hash the node does not know is waited for
 * `unseenWindowMs`, one it knows but has not mined for a day; then it is dropped (`not_found`). A mined
 * transaction whose transfers pay the invoice is `found` at once, so the invoice turns processing, but
 * judged only once it has the network's confirmations, so a reorganisation before that changes nothing.
 * Then, in order: reverted; no USDC Transfer at all (`wrong_token`: the port returns the network's USDC
 * logs only); none to the recipient (`recipient_mismatch`); none of the exact amount
 * (`amount_mismatch`); each one executing an authorization made for another order
 * (`authorized_for_another_order`); mined before the invoice existed (`predates_invoice`); mined after the deadline
 * although submitted after it too (`expired` — one submitted before the deadline may be mined after it:
 * late verification).
 */
export function judgeTransfer(receipt: ReceiptStatus, expected: TransferExpectation, now: Date): TransferVerdict {
  const waited = now.getTime() - expected.submittedAt.getTime();
  if (receipt.kind === 'not_found')
    return waited < expected.unseenWindowMs
      ? { kind: 'wait', why: 'transaction not seen yet' }
      : { kind: 'fail', reason: 'not_found' };
  if (receipt.kind === 'pending')
    return waited < UNMINED_WINDOW_MS
      ? { kind: 'wait', why: 'transaction not mined yet' }
      : { kind: 'fail', reason: 'not_found' };
  const verdict = judgeMined(receipt, expected);
  if (receipt.confirmations < expected.confirmations)
    return verdict.kind === 'accept'
      ? { kind: 'found', blockTime: verdict.blockTime }
      : { kind: 'wait', why: 'waiting for confirmations' };
  return verdict;
}

function judgeMined(
  receipt: Extract<ReceiptStatus, { kind: 'mined' }>,
  expected: TransferExpectation,
): Extract<TransferVerdict, { kind: 'fail' | 'accept' }> {
  if (!receipt.success) return { kind: 'fail', reason: 'reverted' };
  if (receipt.transfers.length === 0) return { kind: 'fail', reason: 'wrong_token' };
  const toRecipient = receipt.transfers.filter((log) => log.to.toLowerCase() === expected.payTo);
  if (toRecipient.length === 0) return { kind: 'fail', reason: 'recipient_mismatch' };
  const sized = toRecipient.filter((log) => log.value === expected.amount);
  if (sized.length === 0) return { kind: 'fail', reason: 'amount_mismatch' };
  const exact = sized.filter(
    (log) =>
      log.authorizationNonce === undefined ||
      expected.authorizedFor({ ...log, authorizationNonce: log.authorizationNonce }),
  );
  if (exact.length === 0) return { kind: 'fail', reason: 'authorized_for_another_order' };
  if (receipt.blockTime.getTime() < expected.invoiceCreatedAt.getTime() - CLOCK_SKEW_MS)
    return { kind: 'fail', reason: 'predates_invoice' };
  const deadline = expected.deadline.getTime();
  if (receipt.blockTime.getTime() > deadline && expected.submittedAt.getTime() > deadline)
    return { kind: 'fail', reason: 'expired' };
  const { blockNumber, blockHash, blockTime } = receipt;
  return { kind: 'accept', candidates: exact, blockNumber, blockHash, blockTime };
}
