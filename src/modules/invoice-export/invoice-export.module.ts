import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { invoiceExportRoute } from './invoice-export.routes.js';
import { InvoiceExportService } from './invoice-export.service.js';

/** The CSV export of a workspace's invoices, and its route, which the invoices module serves among its own. */
export function invoiceExportModule(deps: { readonly db: Db; readonly clock: Clock }) {
  const invoiceExport = new InvoiceExportService(deps);
  return { invoiceExport, route: invoiceExportRoute({ invoiceExport }) };
}
