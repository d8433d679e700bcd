import { AppError } from '../../shared/errors.js';

/**
 * Every kind of ledger entry, with what it records. `amount` is the change of the balance, `reserve`
 * the change of the reserved credits (both signed).
 */
export const LEDGER_KINDS = {
  grant:
    "The new-workspace grant: NEW_WORKSPACE_CREDITS for a wallet's first workspace, 0 for its later ones and for a first workspace created from an address that had its free grants for the day (`reason` says which).",
  manual_grant: 'Credits granted by the operator, with the reason they gave.',
  purchase: 'Credits of a paid credit purchase; `reference` is its id (`cp_…`).',
  'purchase.reverted':
    "A paid credit purchase's credits taken back: a reorganisation of the chain took its payment out before it was final; `reference` is its id (`cp_…`). At most the credits available then are taken.",
  'invoice.created': "An invoice's creation cost charged and its success fee reserved; `reference` is the invoice id.",
  'invoice.renewed': 'A renewal: the new window charged, the success-fee reserve set again.',
  'invoice.paid': 'The success fee captured: it leaves the reserve and the balance together.',
  'invoice.cancelled': 'The success-fee reserve released by cancellation.',
  'invoice.expired': 'The success-fee reserve released at the deadline.',
} as const;
export type LedgerKind = keyof typeof LEDGER_KINDS;

/** The kinds that add credits to a workspace (besides the new-workspace grant). */
export type CreditKind = Extract<LedgerKind, 'manual_grant' | 'purchase'>;

export interface LedgerEntry {
  /** Its position in the workspace's ledger: 1, 2, … */
  readonly seq: bigint;
  readonly kind: string;
  readonly amount: bigint;
  readonly reserveChange: bigint;
  readonly balanceAfter: bigint;
  readonly reference: string | null;
  readonly reason: string | null;
  readonly createdAt: Date;
  /** The number of the invoice `reference` names (`INV-000012`), as people know it; null otherwise. */
  readonly invoiceNumber: string | null;
}

/** The most credits one manual grant adds: a typo of a few digits must not mint a fortune. */
export const MAX_GRANT_CREDITS = 1_000_000_000;
export const MAX_REASON_CHARS = 500;

/** The largest bigint PostgreSQL holds: a cursor beyond it was never handed out. */
const MAX_SEQ = 2n ** 63n - 1n;
const CURSOR = /^[1-9][0-9]{0,18}$/;

/**
 * Ledger cursors are the position of the last entry a page returned; the next page holds older ones.
 * Positions are the workspace's own (1, 2, …), so a cursor reveals nothing the page did not show.
 * undefined (first page) → null; anything never handed out → invalid_cursor.
 */
export function parseLedgerCursor(raw: string | undefined): bigint | null {
  if (raw === undefined) return null;
  if (!CURSOR.test(raw) || BigInt(raw) > MAX_SEQ) {
    throw new AppError(
      'invalid_cursor',
      `"${raw.slice(0, 40)}" is not a ledger cursor: omit after for the newest entries, then pass the nextCursor a page returned.`,
    );
  }
  return BigInt(raw);
}

/** Whole credits from 1 to MAX_GRANT_CREDITS, and a reason in words: what a manual grant needs. */
export function checkGrant(credits: number, reason: string): { credits: number; reason: string } {
  if (!Number.isSafeInteger(credits) || credits < 1 || credits > MAX_GRANT_CREDITS) {
    throw new AppError('invalid_request', `credits must be a whole number from 1 to ${MAX_GRANT_CREDITS}.`);
  }
  const trimmed = reason.trim();
  if (trimmed === '' || [...trimmed].length > MAX_REASON_CHARS || trimmed.includes('\u0000')) {
    throw new AppError('invalid_request', `reason must say why, in 1 to ${MAX_REASON_CHARS} characters.`);
  }
  return { credits, reason: trimmed };
}
