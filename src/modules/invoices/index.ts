export {
  EXPIRES_IN_CREDITS,
  EXTERNAL_ID_MAX_BYTES,
  INVOICE_STATUSES,
  effectiveStatus,
  formatInvoiceNumber,
  transition,
  type Invoice,
  type InvoiceCommand,
  type InvoiceId,
  type InvoiceStatus,
} from './invoice.js';
export { checkIdempotencyKey, requestHash, type CreateInvoiceInput, type ValidInvoiceInput } from './invoice-input.js';
export { presentInvoice } from './invoice.present.js';
export { findInvoice, lockInvoice, toInvoice } from './invoice.repo.js';
export { IDEMPOTENCY_TTL_SECONDS, InvoiceService, persistTransition, type InvoiceCost } from './invoice.service.js';
