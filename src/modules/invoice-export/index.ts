/** What other modules may use of the invoice export; everything else is the module's own. */
export { invoiceExportModule } from './invoice-export.module.js';
