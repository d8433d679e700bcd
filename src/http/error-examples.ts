import { Type, type TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../shared/errors.js';
import { ErrorBody } from './common.schemas.js';
import { ERROR_STATUS } from './error-status.js';

/** How the API document shows one error code: a line on when it happens and a message it could carry. */
interface ErrorExample {
  readonly summary: string;
  readonly message: string;
  /** Fields the body carries besides code, message and requestId for this code. */
  readonly fields?: Readonly<Record<string, unknown>>;
}

/**
 * One example per error code, beside ERROR_STATUS: `satisfies` makes a code without an example a compile
 * error, so every operation that answers a code can show it. The messages are ones the service sends.
 */
export const ERROR_EXAMPLES = {
  invalid_request: {
    summary: 'A field is missing or does not match its schema',
    message: 'Invalid body: amount is required.',
    fields: { details: [{ path: 'amount', message: 'is required' }] },
  },
  invalid_url: {
    summary: 'The URL does not decode',
    message: 'The URL is not valid: a percent-encoded part does not decode to UTF-8 text.',
  },
  uri_too_long: { summary: 'The URL is too long', message: 'The URL is too long.' },
  headers_too_large: { summary: 'The headers are too large', message: 'The request headers are too large.' },
  request_timeout: { summary: 'The request arrived too slowly', message: 'The request took too long to arrive.' },
  expectation_failed: {
    summary: 'An Expect header other than 100-continue',
    message: 'Only "Expect: 100-continue" is supported; send the request again without "Expect: foo".',
  },
  invalid_json: { summary: 'The body is not JSON', message: 'The request body is not valid JSON.' },
  unsupported_media_type: {
    summary: 'The body is not JSON',
    message: 'Send the body as JSON with Content-Type: application/json.',
  },
  payload_too_large: { summary: 'The body is too large', message: 'The request body is too large.' },
  not_found: { summary: 'No such resource here', message: 'Nothing with that id in this workspace.' },
  method_not_allowed: { summary: 'The method is not served here', message: 'Method not allowed.' },
  missing_api_key: {
    summary: 'No API key was sent',
    message: 'Send your API key as "Authorization: Bearer isk_…".',
  },
  invalid_api_key: {
    summary: 'The API key is unknown or of another workspace',
    message: 'The API key is not valid for this workspace.',
  },
  api_key_revoked: {
    summary: 'The API key was revoked',
    message: 'This API key was revoked. Create a new key in the portal.',
  },
  api_key_in_query: {
    summary: 'An API key was sent in the URL',
    message: 'API keys are accepted only in the Authorization header, never in the URL.',
  },
  permission_denied: {
    summary: 'The API key lacks the permission',
    message: 'This API key lacks the invoices:create permission.',
  },
  key_recipient_mismatch: {
    summary: 'A key cannot receive at another address',
    message: 'Every key receives at the workspace wallet; leave payTo out.',
  },
  rate_limited: {
    summary: 'Too many requests: wait for Retry-After',
    message: 'Too many requests with this API key. Retry after the delay in Retry-After.',
  },
  too_many_connections: {
    summary: 'Too many open connections from this address',
    message: 'Too many connections from this address.',
  },
  api_key_limit_reached: {
    summary: 'The workspace holds its most active keys',
    message: 'A workspace may hold 5 active keys; revoke one first.',
  },
  api_key_creation_rate_limited: {
    summary: 'Keys are created too fast',
    message: 'At most 3 keys an hour and 10 a day may be created. Retry after the delay in Retry-After.',
  },
  session_required: { summary: 'Not signed in', message: 'Not signed in.' },
  origin_mismatch: {
    summary: 'The change was not sent from this service’s pages',
    message: 'Changes are accepted only from this service’s own pages.',
  },
  invalid_siwe_message: {
    summary: 'The sign-in message does not parse',
    message: 'The message is not a Sign-In with Ethereum message.',
  },
  siwe_domain_mismatch: {
    summary: 'The message names another domain',
    message: 'The message is for evil.example; sign in on pay.example.com.',
  },
  siwe_uri_mismatch: { summary: 'The message names another URI', message: 'The message URI is not this service.' },
  siwe_chain_not_supported: {
    summary: 'The message names a chain the service does not serve',
    message: 'Sign in on a chain this service serves.',
  },
  siwe_nonce_invalid: {
    summary: 'The nonce is unknown or used',
    message: 'The nonce is unknown, used or expired. Request a new nonce and sign again.',
  },
  siwe_expired: {
    summary: 'The message has expired',
    message: 'The message has expired. Request a new nonce and sign again.',
  },
  siwe_not_yet_valid: { summary: 'The message is not valid yet', message: 'The message is not valid yet.' },
  siwe_signature_invalid: {
    summary: 'The signature does not match',
    message: 'The signature does not match the message and address.',
  },
  unknown_field: {
    summary: 'A field the operation does not know (a typo is never ignored)',
    message: 'Invalid body: ammount is not a known field.',
    fields: { details: [{ path: 'ammount', message: 'is not a known field' }] },
  },
  invalid_amount: {
    summary: 'The amount is not a USDC amount',
    message:
      'amount must be a positive USDC amount with a dot as decimal separator and at most 6 decimals, such as "12.50".',
  },
  amount_too_large: {
    summary: 'The amount is above maxInvoiceAmount',
    message: 'amount is above the largest invoice amount, 10000.000000 USDC (maxInvoiceAmount, also in GET /billing).',
    fields: { maxInvoiceAmount: '10000.000000' },
  },
  unsupported_currency: { summary: 'A currency other than USDC', message: 'Only USDC is supported.' },
  unsupported_network: {
    summary: 'A network this service does not serve',
    message: 'This invoice is not payable on ethereum.',
  },
  invalid_expires_in: {
    summary: 'expiresIn is not one of the windows',
    message: 'expiresIn must be one of 3600, 86400, 432000.',
  },
  external_id_too_long: {
    summary: 'externalId is longer than 128 bytes',
    message: 'externalId is limited to 128 UTF-8 bytes.',
  },
  invalid_description: {
    summary: "An invoice's description holds a control character other than a line break or tab",
    message:
      'description holds a control character: it is plain text shown to the buyer, where only line breaks and tabs are kept.',
  },
  invalid_return_url: { summary: 'A return URL is not a valid https URL', message: 'successUrl is not a valid URL.' },
  return_origin_not_allowed: {
    summary: 'A return URL is on an origin the checkout settings do not allow',
    message: 'successUrl is not on an allowed checkout return origin (PUT /checkout-settings).',
  },
  number_not_allowed: {
    summary: 'Invoice numbers are assigned by the service',
    message: 'Omit number: the service assigns invoice numbers (INV-000001, …).',
  },
  pay_to_mismatch: {
    summary: 'Money goes only to the workspace wallet',
    message: 'payTo must be omitted: every invoice pays the workspace wallet.',
  },
  idempotency_key_missing: {
    summary: 'No Idempotency-Key header',
    message: 'Send an Idempotency-Key header (8–128 characters, new per invoice).',
  },
  invalid_idempotency_key: {
    summary: 'The Idempotency-Key is malformed',
    message: 'Idempotency-Key must be 8 to 128 visible ASCII characters.',
  },
  idempotency_key_reused: {
    summary: 'The Idempotency-Key was used with another body',
    message: 'This Idempotency-Key was used with another request body; use a new key for a new request.',
  },
  insufficient_credits: {
    summary: 'Not enough available credits',
    message: 'Not enough available credits for this change. See GET /billing.',
  },
  invoice_already_paid: {
    summary: 'The invoice is paid',
    message: 'This invoice is paid; it can be neither cancelled nor renewed.',
  },
  invoice_cancelled: { summary: 'The invoice is cancelled', message: 'This invoice was cancelled.' },
  invoice_processing: {
    summary: 'A payment is being verified',
    message: 'A payment for this invoice is being verified. Do not pay again.',
  },
  payment_identifier_conflict: {
    summary: 'The x402 payment identifier names another payment',
    message:
      'This payment identifier already names another payment of this order. Use a new identifier for a new payment; send the same payment again to get its answer.',
  },
  invoice_expired: { summary: 'The invoice has expired', message: 'This invoice has expired.' },
  invoice_recipient_changed: {
    summary: 'The invoice pays an address the workspace no longer receives at',
    message:
      'This invoice was issued for another receiving address; it can no longer be paid or renewed. Cancel it and create a new invoice.',
  },
  invoice_not_paid: {
    summary: 'No receipt before the invoice is paid',
    message: 'This invoice is not paid yet; a receipt exists once it is.',
  },
  invalid_payment: {
    summary: 'The payment is refused',
    message: 'The authorization is not for the exact invoice amount.',
    fields: { reason: 'amount_mismatch' },
  },
  payment_failed: { summary: 'The payment failed', message: 'The payment failed: reverted.' },
  invalid_origin: {
    summary: 'A return origin is not an exact https origin',
    message: 'origins[0] must be an https origin on port 443.',
  },
  description_too_long: {
    summary: "A description is too long (the workspace's, or an invoice's: 1,000 UTF-8 bytes)",
    message: 'The workspace description is limited to 500 characters here.',
  },
  invalid_support_contact: {
    summary: 'The support contact is neither an email address nor an https URL',
    message:
      'The support contact must be an email address such as help@example.com (at most 254 characters) or an https URL without a user name or password, such as https://example.com/help (at most 2048 characters).',
  },
  invalid_accent_color: {
    summary: 'The accent colour is not #rrggbb',
    message: 'The accent colour must be a hex colour #rrggbb such as #0052ff, or null for none.',
  },
  workspace_limit_reached: {
    summary: 'The wallet owns its most workspaces',
    message: 'A wallet may own 10 workspaces.',
  },
  invalid_cursor: { summary: 'The cursor is malformed', message: 'Invalid querystring: cursor must match pattern.' },
  cursor_expired: {
    summary: 'The cursor is older than the retained events',
    message: 'Events after this cursor are no longer retained; reconcile, then restart from restartCursor.',
    fields: { restartCursor: '1042' },
  },
  invalid_webhook_endpoint: {
    summary: 'The endpoint is not a public https URL on port 443',
    message: 'The webhook endpoint must be a public https URL on port 443.',
  },
  webhook_not_configured: {
    summary: 'No webhook endpoint is set',
    message: 'No webhook endpoint is set: PUT /webhook with an endpoint first.',
  },
  webhook_test_rate_limited: {
    summary: 'One test event per minute',
    message: 'One test event per minute: try again in 42 s.',
  },
  delivery_already_succeeded: {
    summary: 'The delivery was already acknowledged',
    message: 'This event was already delivered.',
  },
  budget_exceeded: {
    summary: 'The batch costs more than budgetCredits',
    message: 'The batch costs 12 credits, above budgetCredits 10; nothing was created.',
  },
  batch_binding_evicted: {
    summary: 'The Idempotency-Key of an older batch is no longer held',
    message: 'This batch’s Idempotency-Key is no longer held; send the batch with a new key.',
  },
  unknown_package: { summary: 'No package with that id', message: 'No credit package "gold"; see GET /billing.' },
  purchases_unavailable: {
    summary: 'The operator has not configured credit purchases',
    message: 'Credit purchases are not available on this service: its operator has not configured OPERATOR_WALLET.',
  },
  purchase_paid: {
    summary: 'The credit purchase is paid',
    message: 'This credit purchase is already paid. Do not pay again.',
  },
  purchase_processing: {
    summary: 'A payment for the purchase is being verified',
    message: 'A payment for this credit purchase is being verified. Do not pay again.',
  },
  purchase_expired: {
    summary: 'The credit purchase has expired',
    message: 'This credit purchase has expired; make a new one to buy credits.',
  },
  invalid_schedule: { summary: 'The schedule is not possible', message: 'endAt must be after the schedule startAt.' },
  automation_ended: {
    summary: 'The automation has ended',
    message: 'This automation has ended; create a new one to start again.',
  },
  received_transfer_resolved: {
    summary: 'The received transfer is already applied or dismissed',
    message: 'This received transfer is already applied; it can be resolved only once.',
  },
  shortfall_not_accepted: {
    summary: 'The transfer is less than the invoice amount',
    message:
      'This transfer of 9.50 USDC is 0.50 USDC short of the invoice amount 10.00 USDC. Send acceptShortfall: true to mark the invoice paid with it.',
  },
  internal_error: {
    summary: 'Something went wrong on our side',
    message: 'Something went wrong on our side. Retry with the same request.',
  },
  service_unavailable: {
    summary:
      'The service, or the payment network it reads, cannot answer now: send the request again after Retry-After',
    message: 'The database is not reachable.',
  },
} as const satisfies Record<ErrorCode, ErrorExample>;

/** The error statuses of an operation, for its route's `response`: one body shape, whatever the code. */
export function errorResponses(codes: readonly ErrorCode[]): Record<number, TSchema> {
  return Object.fromEntries(codes.map((code) => [ERROR_STATUS[code], Type.Ref(ErrorBody)]));
}

/** The body an error answer would carry, as the API document shows it. */
export function errorBodyExample(code: ErrorCode): Record<string, unknown> {
  const example: ErrorExample = ERROR_EXAMPLES[code];
  return { code, message: example.message, requestId: 'req_01JD6Q5V0KZ7R3X9M2T4B8N1C6', ...example.fields };
}

/** The named examples of each error status an operation answers, keyed by code. */
export function errorExamplesByStatus(
  codes: readonly ErrorCode[],
): Map<number, Record<string, { summary: string; value: unknown }>> {
  const byStatus = new Map<number, Record<string, { summary: string; value: unknown }>>();
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, {
      ...byStatus.get(status),
      [code]: { summary: `${code}: ${ERROR_EXAMPLES[code].summary}`, value: errorBodyExample(code) },
    });
  }
  return byStatus;
}
