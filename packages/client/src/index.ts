export { createClient, type ClientOptions, type InvoiceClient } from './client.js';
export type { ChangeEvent, ChangePage, ChangesOptions } from './changes.js';
export { ApiError, ChangeFeedGoneError } from './errors.js';
export type { components, operations, paths } from './generated/api.js';
export type { Invoice, InvoiceExportQuery, InvoiceListQuery } from './invoices.js';
export { DEFAULT_RETRY, retryAfterMs, type RetryPolicy, type Transport } from './retry.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from './webhooks.js';
