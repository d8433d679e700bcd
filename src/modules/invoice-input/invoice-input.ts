import { AppError } from '../../shared/errors.js';
import { isLoopbackHttp } from '../../shared/loopback.js';
import { formatUsdc, parseUsdc } from '../../shared/money.js';

/** Payment windows in seconds (1 hour, 1 day, 5 days) and what each costs in credits. */
export const EXPIRES_IN_CREDITS = { 3600: 1, 86400: 2, 432000: 3 } as const;
export type ExpiresIn = keyof typeof EXPIRES_IN_CREDITS;
export const EXPIRES_IN_VALUES = [3600, 86400, 432000] as const satisfies readonly ExpiresIn[];
export const DEFAULT_EXPIRES_IN: ExpiresIn = 3600;
export const EXTERNAL_ID_MAX_BYTES = 128;
/** The checkout page shows the description whole: a page's worth of text, not a document. */
export const DESCRIPTION_MAX_BYTES = 1000;

export function isExpiresIn(value: number): value is ExpiresIn {
  return (EXPIRES_IN_VALUES as readonly number[]).includes(value);
}

/** The byte length limit counts UTF-8 bytes, not characters. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The fields of POST /invoices, as the API reference (/docs) lists them. */
export interface CreateInvoiceInput {
  readonly amount: string;
  readonly currency?: string;
  readonly network?: string;
  readonly expiresIn?: number;
  readonly externalId?: string;
  readonly description?: string;
  readonly successUrl?: string;
  readonly cancelUrl?: string;
  readonly number?: string;
  readonly payTo?: string;
}

export interface ValidInvoiceInput {
  readonly amount: bigint;
  readonly network: string | null;
  readonly expiresIn: ExpiresIn;
  readonly externalId: string | null;
  readonly description: string | null;
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  /** Origins of successUrl/cancelUrl, checked against the workspace's allowed origins in the database. */
  readonly urlOrigins: readonly string[];
  readonly payTo: string | null;
}

export interface InvoiceRules {
  readonly maxAmount: bigint;
  readonly networks: readonly string[];
  /** WEBHOOK_ALLOW_PRIVATE: return URLs may be http on this machine (local development). */
  readonly loopbackHttp?: boolean;
}

/** How every refusal of an amount reads: by the schema, by these rules, in a batch item, in the portal. */
export const INVALID_AMOUNT_MESSAGE =
  'amount must be a positive USDC amount with a dot as decimal separator and at most 6 decimals, such as "12.50".';

/** Every rule of the invoice field table that needs no database. Throws AppError with a specific code. */
export function validateInvoiceInput(input: CreateInvoiceInput, rules: InvoiceRules): ValidInvoiceInput {
  const amount = parseUsdc(input.amount);
  if (amount === undefined || amount <= 0n) {
    throw new AppError('invalid_amount', INVALID_AMOUNT_MESSAGE);
  }
  if (amount > rules.maxAmount) {
    const max = formatUsdc(rules.maxAmount);
    throw new AppError(
      'amount_too_large',
      `amount is above the largest invoice amount, ${max} USDC (maxInvoiceAmount, also in GET /billing).`,
      { fields: { maxInvoiceAmount: max } },
    );
  }
  if (input.currency !== undefined && input.currency !== 'USDC') {
    throw new AppError(
      'unsupported_currency',
      'currency must be USDC (the only supported currency); amounts are in USDC, not fiat.',
    );
  }
  if (input.network !== undefined && !rules.networks.includes(input.network)) {
    throw new AppError(
      'unsupported_network',
      `network must be one of: ${rules.networks.join(', ')}. Omit it to let the payer choose.`,
    );
  }
  const expiresIn = input.expiresIn ?? DEFAULT_EXPIRES_IN;
  if (!isExpiresIn(expiresIn))
    throw new AppError('invalid_expires_in', `expiresIn must be one of ${EXPIRES_IN_VALUES.join(', ')} (seconds).`);
  if (input.externalId !== undefined && utf8Bytes(input.externalId) > EXTERNAL_ID_MAX_BYTES) {
    throw new AppError('external_id_too_long', `externalId is limited to ${EXTERNAL_ID_MAX_BYTES} UTF-8 bytes.`);
  }
  if (input.description !== undefined) checkDescription(input.description);
  if (input.number !== undefined) {
    throw new AppError('number_not_allowed', 'Omit number: the service assigns invoice numbers (INV-000001, …).');
  }
  const loopbackHttp = rules.loopbackHttp ?? false;
  const successOrigin =
    input.successUrl === undefined ? undefined : returnUrlOrigin('successUrl', input.successUrl, loopbackHttp);
  const cancelOrigin =
    input.cancelUrl === undefined ? undefined : returnUrlOrigin('cancelUrl', input.cancelUrl, loopbackHttp);
  return {
    amount,
    network: input.network ?? null,
    expiresIn,
    externalId: input.externalId ?? null,
    // Empty is no description: the checkout page would show an empty paragraph.
    description: input.description || null,
    successUrl: input.successUrl ?? null,
    cancelUrl: input.cancelUrl ?? null,
    urlOrigins: [...new Set([successOrigin, cancelOrigin].filter((origin): origin is string => origin !== undefined))],
    payTo: input.payTo === undefined ? null : input.payTo.toLowerCase(),
  };
}

/**
 * Control characters but tab and line breaks (LF, CR): C0, DEL and C1. The description is shown to buyers
 * as text, where these would be invisible, or in a CSV export and a terminal, where they could act.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const DESCRIPTION_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

function checkDescription(description: string): void {
  if (utf8Bytes(description) > DESCRIPTION_MAX_BYTES) {
    throw new AppError(
      'description_too_long',
      `description is limited to ${DESCRIPTION_MAX_BYTES} UTF-8 bytes (a character such as "€" counts 3).`,
    );
  }
  if (DESCRIPTION_CONTROL.test(description)) {
    throw new AppError(
      'invalid_description',
      'description holds a control character: it is plain text shown to the buyer, where only line breaks and tabs are kept.',
    );
  }
}

/**
 * A request may name the workspace wallet as `payTo` (in any letter case), which changes nothing; any
 * other value is refused, since money goes only to the workspace wallet
 * (docs/spec/merchant-api-core-v1.1.0.md, What the service does 4).
 */
export function checkPayTo(payTo: string | undefined, wallet: string): void {
  if (payTo !== undefined && payTo.toLowerCase() !== wallet.toLowerCase()) {
    throw new AppError(
      'pay_to_mismatch',
      'payTo differs from the workspace wallet. Omit payTo: payments always go to the workspace wallet.',
    );
  }
}

function returnUrlOrigin(field: string, value: string, loopbackHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError('invalid_return_url', `${field} is not a valid URL.`);
  }
  if ((url.protocol !== 'https:' && !(loopbackHttp && isLoopbackHttp(url))) || url.username || url.password) {
    throw new AppError('invalid_return_url', `${field} must be an https URL without credentials.`);
  }
  return url.origin;
}

/**
 * The portal accepts a comma as the decimal separator ("12,50") and normalises it; the API itself
 * accepts only a dot. A value with both separators is left as it is, to be refused.
 */
export function normalisePortalAmount(amount: string): string {
  const trimmed = amount.trim();
  return trimmed.includes('.') ? trimmed : trimmed.replace(/^(\d+),(\d+)$/, '$1.$2');
}
