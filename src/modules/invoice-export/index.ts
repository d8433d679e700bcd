/** What other modules may use of the invoice export; everything else is the module's own. */
export { InvoiceExportService } from './invoice-export.service.js';
export { invoiceExportModule } from './invoice-export.module.js';
