import { AppError } from '../../shared/errors.js';

/** The largest id a PostgreSQL bigint holds; a cursor beyond it was never handed out. */
const MAX_EVENT_ID = 2n ** 63n - 1n;

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** The kinds the feed carries (the route's description lists them); defined in the event catalogue. */
export { INVOICE_EVENT_TYPES, PAYMENT_INTENT_EVENT_TYPES, TRANSFER_EVENT_TYPES } from './event.js';

/**
 * Parses a cursor: a decimal string of a non-negative event id, at most a bigint (so that SQL can
 * compare it). Checked here as well as in the route schema so the service stands on its own.
 */
export function parseCursor(raw: string): bigint {
  if (!/^[0-9]{1,19}$/.test(raw)) throw invalidCursor(raw);
  const value = BigInt(raw);
  if (value > MAX_EVENT_ID) throw invalidCursor(raw);
  return value;
}

export function invalidCursor(raw: string): AppError {
  return new AppError(
    'invalid_cursor',
    `"${raw.slice(0, 40)}" is not a cursor of this feed: use "0" or a nextCursor or restartCursor this feed returned.`,
  );
}

export function cursorExpired(restartCursor: bigint): AppError {
  return new AppError(
    'cursor_expired',
    'Events after this cursor were deleted by retention. Reconcile from current state (GET /invoices/{id}, receipts), then continue from restartCursor.',
    { fields: { restartCursor: restartCursor.toString() } },
  );
}
