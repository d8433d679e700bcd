/** What other modules may use of invoice-batches; everything else is the module's own. */
export { InvoiceBatchService } from './batch.service.js';
export { invoiceBatchesModule } from './invoice-batches.module.js';
