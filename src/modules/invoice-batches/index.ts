/** What other modules may use of invoice-batches; everything else is the module's own. */
export { invoiceBatchRoutes } from './batch.routes.js';
export { InvoiceBatchService } from './batch.service.js';
