import { ID_PATTERN, randomToken, type Branded, type WorkspaceId } from '../../shared/ids.js';
// A transfer mined this little before an invoice was created may still be its payment: the engine's rule,
// which judges the transfer again when it pays.
import { CLOCK_SKEW_MS } from '../payment-engine/index.js';

export type ReceivedTransferId = Branded<string, 'ReceivedTransferId'>;

export const RECEIVED_TRANSFER_STATUSES = ['unmatched', 'applied', 'dismissed'] as const;
export type ReceivedTransferStatus = (typeof RECEIVED_TRANSFER_STATUSES)[number];

/**
 * Why a transfer paid nothing by itself: several open invoices of its amount (`ambiguous`), none of
 * its amount (`no_matching_invoice`), submitted for an invoice of another amount (`amount_mismatch`),
 * or mined after the deadline of the invoice of its amount (`late`).
 */
export const RECEIVED_TRANSFER_REASONS = ['ambiguous', 'no_matching_invoice', 'amount_mismatch', 'late'] as const;
export type ReceivedTransferReason = (typeof RECEIVED_TRANSFER_REASONS)[number];

/** A confirmed USDC transfer to a workspace wallet, as the chain shows it. Addresses lowercase. */
export interface IncomingTransfer {
  readonly network: string;
  readonly txHash: `0x${string}`;
  readonly logIndex: number;
  readonly from: `0x${string}`;
  readonly to: `0x${string}`;
  readonly value: bigint;
  readonly blockNumber: bigint;
  readonly blockTime: Date;
}

export interface ReceivedTransfer {
  readonly workspaceId: WorkspaceId;
  readonly id: ReceivedTransferId;
  readonly transfer: IncomingTransfer;
  readonly status: ReceivedTransferStatus;
  readonly reason: ReceivedTransferReason;
  /** The invoice it was meant for, when known. */
  readonly invoiceId: string | null;
  readonly appliedInvoiceId: string | null;
  readonly paymentIntentId: string | null;
  readonly note: string | null;
  readonly createdAt: Date;
  readonly resolvedAt: Date | null;
}

export function newReceivedTransferId(): ReceivedTransferId {
  return `rt_${randomToken()}` as ReceivedTransferId;
}

const ID = new RegExp(ID_PATTERN);

export function isReceivedTransferId(value: string): value is ReceivedTransferId {
  return value.startsWith('rt_') && ID.test(value);
}

/** An invoice a transfer of its amount to its wallet may pay (invoices' TransferCandidate). */
export interface Candidate {
  readonly workspaceId: WorkspaceId;
  readonly id: string;
  readonly status: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export type TransferMatch =
  /** Exactly one open invoice of its amount, created before it and due after it: it pays that one. */
  | { readonly kind: 'pays'; readonly invoice: Candidate }
  /** An invoice of its amount is being paid now: the payment engine judges this transfer, not the scan. */
  | { readonly kind: 'engine' }
  | {
      readonly kind: 'unmatched';
      readonly reason: Extract<ReceivedTransferReason, 'ambiguous' | 'no_matching_invoice' | 'late'>;
      /** The invoice it came too late for, when there is exactly one. */
      readonly invoiceId: string | null;
    };

/**
 * The matching rule of a transfer found on the chain, pure: it pays an invoice only when exactly one
 * open invoice of exactly its amount, issued for its wallet, was created before it was mined and was
 * due after (`candidates` are those of its wallet and amount). Several: `ambiguous`, for the merchant
 * to choose. None open in time but one whose deadline it missed: `late`. None at all: `no_matching_invoice`.
 */
export function matchTransfer(
  transfer: Pick<IncomingTransfer, 'blockTime'>,
  candidates: readonly Candidate[],
): TransferMatch {
  if (candidates.some((invoice) => invoice.status === 'processing')) return { kind: 'engine' };
  const mined = transfer.blockTime.getTime();
  const inTime = candidates.filter(
    (invoice) =>
      invoice.status === 'open' &&
      invoice.createdAt.getTime() - CLOCK_SKEW_MS <= mined &&
      mined <= invoice.expiresAt.getTime(),
  );
  if (inTime.length === 1) return { kind: 'pays', invoice: inTime[0]! };
  if (inTime.length > 1) return { kind: 'unmatched', reason: 'ambiguous', invoiceId: null };
  const missed = candidates.filter(
    (invoice) =>
      (invoice.status === 'open' || invoice.status === 'expired') &&
      invoice.createdAt.getTime() - CLOCK_SKEW_MS <= mined &&
      mined > invoice.expiresAt.getTime(),
  );
  if (missed.length > 0)
    return { kind: 'unmatched', reason: 'late', invoiceId: missed.length === 1 ? missed[0]!.id : null };
  return { kind: 'unmatched', reason: 'no_matching_invoice', invoiceId: null };
}
