/** What other modules may use of invoice-search; everything else is the module's own. */
export { InvoiceSearchService } from './search.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { SearchPage } from './search.schemas.js';
export { invoiceSearchModule } from './invoice-search.module.js';
