/**
 * What other modules may use of receipts: numbering one as its invoice is paid (the invoices' order book
 * calls these inside the paying transaction), reading one (the API, the buyer's checkout link), and its PDF; everything else is the module's own.
 */
export { findReceipt, receiptIssues, voidReceipt, type ReceiptIssue } from './receipt.repo.js';
export { ReceiptService } from './receipt.service.js';
export { formatReceiptNumber, type Receipt } from './receipt.js';
export { presentReceipt } from './receipt.present.js';
export { receiptAttachment, receiptPdf } from './receipt.pdf.js';
export { receiptsModule } from './receipts.module.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { ReceiptView } from './receipt.schemas.js';
