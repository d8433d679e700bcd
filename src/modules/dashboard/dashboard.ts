import { formatUsdc } from '../../shared/money.js';

/** The chart's window: today and the 29 days before it, in UTC. */
export const DASHBOARD_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;

export interface PaidDay {
  readonly day: string;
  readonly amount: bigint;
  readonly count: number;
}

export interface AttemptDay {
  readonly day: string;
  readonly attempts: number;
  readonly succeeded: number;
}

/** Midnight UTC at the start of the window that ends today. */
export function windowStart(now: Date, days = DASHBOARD_DAYS): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (days - 1) * DAY_MS);
}

/**
 * One entry per day of the window, oldest first, days without activity as zeros: the client draws
 * the series as it is, with no date arithmetic of its own. Totals are the sums over the window.
 */
export function dailySeries(
  from: Date,
  paid: readonly PaidDay[],
  attempts: readonly AttemptDay[],
  days = DASHBOARD_DAYS,
) {
  const paidBy = new Map(paid.map((row) => [row.day, row]));
  const attemptsBy = new Map(attempts.map((row) => [row.day, row]));
  let paidAmount = 0n;
  let paidInvoices = 0;
  let webhookAttempts = 0;
  let webhookSucceeded = 0;
  const series = Array.from({ length: days }, (_, i) => {
    const date = new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    const p = paidBy.get(date);
    const a = attemptsBy.get(date);
    paidAmount += p?.amount ?? 0n;
    paidInvoices += p?.count ?? 0;
    webhookAttempts += a?.attempts ?? 0;
    webhookSucceeded += a?.succeeded ?? 0;
    return {
      date,
      paidAmount: formatUsdc(p?.amount ?? 0n),
      paidInvoices: p?.count ?? 0,
      webhookAttempts: a?.attempts ?? 0,
      webhookSucceeded: a?.succeeded ?? 0,
    };
  });
  return {
    from: from.toISOString(),
    days: series,
    totals: { paidAmount: formatUsdc(paidAmount), paidInvoices, webhookAttempts, webhookSucceeded },
  };
}
