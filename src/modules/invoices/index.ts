export {
  EXPIRES_IN_CREDITS,
  EXTERNAL_ID_MAX_BYTES,
  INVOICE_STATUSES,
  effectiveStatus,
  invoiceAsRead,
  isArchived,
  formatInvoiceNumber,
  isInvoiceId,
  type Invoice,
  type InvoiceId,
  type InvoiceStatus,
} from './invoice.js';
export {
  checkPayTo,
  normalisePortalAmount,
  type CreateInvoiceInput,
  type ValidInvoiceInput,
} from '../invoice-input/index.js';
export { presentInvoice, type InvoicePresentation } from './invoice.present.js';
export { findInvoice, hasStatus as invoiceHasStatus, toInvoice } from './invoice.repo.js';
export { InvoiceService, type InvoiceCost } from './invoice.service.js';
export {
  CREATE_FIELD_CODES,
  CreateInvoiceBody,
  IdempotencyHeaders,
  InvoiceListQuery,
  InvoiceParams,
  InvoiceDescription,
  InvoiceView,
  PayTo,
} from './invoice.schemas.js';
export { INVOICE_EXAMPLE, PAID_INVOICE_EXAMPLE } from './invoice.examples.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { InvoicePage } from './invoice.schemas.js';
export { invoicesModule } from './invoices.module.js';
