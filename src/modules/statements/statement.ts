import { AppError } from '../../shared/errors.js';

/** A calendar month in UTC, half-open: from its first instant up to, not including, the next month's. */
export interface StatementMonth {
  /** `YYYY-MM`. */
  readonly month: string;
  readonly from: Date;
  readonly to: Date;
}

/** `YYYY-MM`, years 1970–9999: what the `month` parameter accepts. */
const MONTH = /^(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])$/;

/**
 * The month a statement covers: `raw` (`YYYY-MM`), or the current UTC month when it is left out. A month
 * that has not begun is refused rather than answered with zeros, so a typo of the year cannot pass for
 * a quiet month. Months before the workspace existed are allowed: their statement is all zeros.
 */
export function statementMonth(raw: string | undefined, now: Date): StatementMonth {
  const current = monthOf(now.getUTCFullYear(), now.getUTCMonth());
  if (raw === undefined) return current;
  const match = MONTH.exec(raw);
  if (!match) throw invalidMonth(`"${raw.slice(0, 20)}" is not a month: send it as YYYY-MM, e.g. ${current.month}.`);
  const requested = monthOf(Number(match[1]), Number(match[2]) - 1);
  if (requested.from > current.from) {
    throw invalidMonth(`${requested.month} has not begun yet: the latest statement is for ${current.month}.`);
  }
  return requested;
}

function monthOf(year: number, monthIndex: number): StatementMonth {
  // Date.UTC reads years below 100 as 19xx; the pattern keeps them out.
  const from = new Date(Date.UTC(year, monthIndex, 1));
  const to = new Date(Date.UTC(year, monthIndex + 1, 1));
  return { month: from.toISOString().slice(0, 7), from, to };
}

function invalidMonth(message: string): AppError {
  return new AppError('invalid_request', `month: ${message}`, { details: [{ path: 'month', message }] });
}

/** Paid invoices of one currency on one network, in the month. */
export interface PaidVolume {
  readonly currency: string;
  /** The network the paying transfer was made on; null when no payment record names one. */
  readonly network: string | null;
  readonly invoices: number;
  /** Base units (USDC micro-units). */
  readonly amount: bigint;
}

/** The ledger entries of one kind in the month: what they added and what they took, both ≥ 0. */
export interface LedgerMovement {
  readonly kind: string;
  readonly entries: number;
  readonly credited: bigint;
  readonly debited: bigint;
}

/** What the database holds for one workspace and month; see readStatementFacts. */
export interface StatementFacts {
  readonly workspaceName: string;
  readonly invoicesCreated: number;
  readonly invoicesCancelled: number;
  readonly invoicesExpired: number;
  readonly paid: readonly PaidVolume[];
  readonly openingBalance: bigint;
  readonly closingBalance: bigint;
  readonly movements: readonly LedgerMovement[];
}

export interface CreditSummary {
  readonly openingBalance: bigint;
  /** Credits added other than by purchase: the new-workspace grant, the operator's grants. */
  readonly granted: bigint;
  readonly purchased: bigint;
  /** Credits taken: invoice creation, renewals, success fees. */
  readonly spent: bigint;
  readonly closingBalance: bigint;
}

/**
 * The credit lines of a statement. The closing balance is the ledger's own (the balance its last entry
 * of the month left), never computed here: opening + granted + purchased − spent = closing then holds
 * because every entry's balance is the one before it plus its change, and a test holds it to that.
 */
export function creditSummary(facts: StatementFacts): CreditSummary {
  let granted = 0n;
  let purchased = 0n;
  let spent = 0n;
  for (const movement of facts.movements) {
    if (movement.kind === 'purchase') purchased += movement.credited;
    else granted += movement.credited;
    spent += movement.debited;
  }
  return { openingBalance: facts.openingBalance, granted, purchased, spent, closingBalance: facts.closingBalance };
}
