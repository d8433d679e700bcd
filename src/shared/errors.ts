/**
 * Every error code the service answers with. Domain code throws AppError with one of these and never
 * knows HTTP; src/http/error-status.ts maps each to a status, checked exhaustively by the compiler.
 */
export const ERROR_CODES = [
  'invalid_request',
  'invalid_url',
  'uri_too_long',
  'headers_too_large',
  'request_timeout',
  'expectation_failed',
  'invalid_json',
  'unsupported_media_type',
  'payload_too_large',
  'not_found',
  'method_not_allowed',
  'missing_api_key',
  'invalid_api_key',
  'api_key_revoked',
  'api_key_in_query',
  'permission_denied',
  'key_recipient_mismatch',
  'rate_limited',
  'too_many_connections',
  'api_key_limit_reached',
  'api_key_creation_rate_limited',
  'session_required',
  'origin_mismatch',
  'invalid_siwe_message',
  'siwe_domain_mismatch',
  'siwe_uri_mismatch',
  'siwe_chain_not_supported',
  'siwe_nonce_invalid',
  'siwe_expired',
  'siwe_not_yet_valid',
  'siwe_signature_invalid',
  'unknown_field',
  'invalid_amount',
  'amount_too_large',
  'unsupported_currency',
  'unsupported_network',
  'invalid_expires_in',
  'external_id_too_long',
  'invalid_description',
  'invalid_return_url',
  'return_origin_not_allowed',
  'number_not_allowed',
  'pay_to_mismatch',
  'idempotency_key_missing',
  'invalid_idempotency_key',
  'idempotency_key_reused',
  'insufficient_credits',
  'invoice_already_paid',
  'invoice_cancelled',
  'invoice_processing',
  'payment_identifier_conflict',
  'invoice_expired',
  'invoice_recipient_changed',
  'invoice_not_paid',
  'invalid_payment',
  'payment_failed',
  'invalid_origin',
  'description_too_long',
  'invalid_support_contact',
  'invalid_accent_color',
  'workspace_limit_reached',
  'invalid_cursor',
  'cursor_expired',
  'invalid_webhook_endpoint',
  'webhook_not_configured',
  'webhook_test_rate_limited',
  'delivery_already_succeeded',
  'budget_exceeded',
  'batch_binding_evicted',
  'unknown_package',
  'purchases_unavailable',
  'purchase_paid',
  'purchase_processing',
  'purchase_expired',
  'invalid_schedule',
  'automation_ended',
  'received_transfer_resolved',
  'shortfall_not_accepted',
  'internal_error',
  'service_unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

export interface AppErrorOptions {
  readonly details?: readonly ErrorDetail[];
  /** Extra body fields the case needs (e.g. `restartCursor`). */
  readonly fields?: Readonly<Record<string, unknown>>;
  /** Seconds the client should wait before retrying (sent as `Retry-After`). */
  readonly retryAfterSeconds?: number;
}

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: AppErrorOptions = {},
  ) {
    super(message);
  }
}
