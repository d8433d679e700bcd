import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { InvoiceExportService } from './invoice-export.service.js';

/** The CSV export of a workspace's invoices; its route is the invoices module's, which it serves. */
export function invoiceExportModule(deps: { readonly db: Db; readonly clock: Clock }) {
  return { invoiceExport: new InvoiceExportService(deps) };
}
