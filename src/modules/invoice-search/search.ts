import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { EXTERNAL_ID_MAX_BYTES, type InvoiceId } from '../invoices/index.js';

export const DEFAULT_SEARCH_LIMIT = 25;
export const MAX_SEARCH_LIMIT = 100;
export const MAX_QUERY_LENGTH = 2048;

/** The largest invoice number a PostgreSQL bigint holds: a cursor or number beyond it never existed. */
const MAX_NUMBER = 2n ** 63n - 1n;

/** Invoice numbers as the API shows them (`INV-000042`); letter case and zero padding are not significant. */
const INVOICE_NUMBER = /^inv-0*([0-9]{1,19})$/i;
/** Invoice ids as newInvoiceId makes them: exact, lowercase Crockford base32. */
const INVOICE_ID = /^inv_[0-9a-hjkmnp-tv-z]{26}$/;
/** The invoice links presentInvoice hands out: the checkout page (`i`) and the x402 endpoint. */
const INVOICE_LINK_PATH = /^\/w\/([^/]+)\/(?:i|x402)\/([^/]+)$/;
const TX_HASH = /^0x[0-9a-f]{64}$/i;
const CURSOR = /^[1-9][0-9]{0,18}$/;

/**
 * What one query looks up. Each non-null field is one indexed lookup; the answer is the union of their
 * matches, so a text that is both an order reference and, say, an invoice number finds both.
 */
export interface SearchLookups {
  /** Order reference: always tried with the whole query, since merchants choose them freely. */
  readonly externalId: string | null;
  readonly number: bigint | null;
  /** From an invoice id, or from the checkout URL or x402 `url` of this workspace. */
  readonly invoiceId: InvoiceId | null;
  /** Lowercase, as payments store them. */
  readonly txHash: string | null;
}

export interface SearchContext {
  readonly workspaceId: WorkspaceId;
  /** Links are recognised only on this origin, the one presentInvoice builds them on. */
  readonly publicBaseUrl: URL;
}

/**
 * Classifies a trimmed, non-empty query. Exact matches only, never substrings. A bare number such as
 * `42` is an order reference only: matching it to INV-000042 too would put an unrelated invoice next to
 * the order a client is looking for. Never throws.
 */
export function classifyQuery(q: string, context: SearchContext): SearchLookups {
  return {
    externalId: couldBeExternalId(q) ? q : null,
    number: invoiceNumber(q),
    invoiceId: INVOICE_ID.test(q) ? (q as InvoiceId) : invoiceIdFromLink(q, context),
    txHash: TX_HASH.test(q) ? q.toLowerCase() : null,
  };
}

export function hasLookups(lookups: SearchLookups): boolean {
  return (
    lookups.externalId !== null || lookups.number !== null || lookups.invoiceId !== null || lookups.txHash !== null
  );
}

/** A stored externalId is at most 128 UTF-8 bytes and, being PostgreSQL text, never holds NUL. */
function couldBeExternalId(q: string): boolean {
  return !q.includes('\u0000') && Buffer.byteLength(q, 'utf8') <= EXTERNAL_ID_MAX_BYTES;
}

function invoiceNumber(q: string): bigint | null {
  const digits = INVOICE_NUMBER.exec(q)?.[1];
  if (digits === undefined) return null;
  const number = BigInt(digits);
  return number >= 1n && number <= MAX_NUMBER ? number : null;
}

/**
 * The invoice id in a checkout URL or x402 `url` of this workspace on this service's origin. A link of
 * another workspace or another host yields nothing, so it cannot be used to probe for invoices. A query
 * string or fragment (tracking parameters added by mail and chat apps) does not change the invoice.
 */
function invoiceIdFromLink(q: string, context: SearchContext): InvoiceId | null {
  if (!/^https?:\/\//i.test(q) || !URL.canParse(q)) return null;
  const url = new URL(q);
  if (url.origin !== context.publicBaseUrl.origin || url.username !== '' || url.password !== '') return null;
  const [, workspaceId, invoiceId] = INVOICE_LINK_PATH.exec(url.pathname) ?? [];
  if (workspaceId !== context.workspaceId || invoiceId === undefined || !INVOICE_ID.test(invoiceId)) return null;
  return invoiceId as InvoiceId;
}

/**
 * Cursors are the decimal number of the last invoice a page returned; the next page holds smaller
 * numbers. Clients treat them as opaque. Numbers are unique per workspace, so no tie-breaker is needed,
 * and a cursor reveals nothing the page did not already show.
 */
export function encodeCursor(number: bigint): string {
  return number.toString();
}

/** undefined (first page) → null; anything this search never handed out → invalid_cursor. */
export function parseCursor(raw: string | undefined): bigint | null {
  if (raw === undefined) return null;
  if (!CURSOR.test(raw) || BigInt(raw) > MAX_NUMBER) {
    throw new AppError(
      'invalid_cursor',
      `"${raw.slice(0, 40)}" is not a cursor of this search: omit cursor for the first page, then pass the nextCursor it returned.`,
    );
  }
  return BigInt(raw);
}
