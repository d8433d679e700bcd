import { Readable } from 'node:stream';
import { WorkspaceParams } from '../../http/common.schemas.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { AppError } from '../../shared/errors.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';
import type { InvoiceStatus } from '../invoices/index.js';
import { InvoiceCsv, InvoiceExportQuery } from './invoice-export.schemas.js';
import type { InvoiceExportService } from './invoice-export.service.js';

const tags = ['Invoices'];

const CSV =
  'number,id,status,amount,currency,network,created_at,expires_at,paid_at,payer,transaction_hash,pay_to,external_id,automation_id,description\r\n' +
  `INV-000042,${EXAMPLE_IDS.invoice},paid,12.500000,USDC,base-sepolia,2026-11-14T09:30:00.000Z,2026-11-15T09:30:00.000Z,` +
  `2026-11-14T09:41:12.000Z,${EXAMPLE_IDS.payer},${EXAMPLE_IDS.transaction},${EXAMPLE_IDS.wallet},order-1042,,"Blue glazed teapot, 1 l"\r\n`;

/** GET /invoices/export: the invoices module serves it among its own routes, in its place. */
export function invoiceExportRoute(services: { readonly invoiceExport: InvoiceExportService }): SharedRoute {
  return sharedRoute({
    method: 'GET',
    url: '/invoices/export',
    permission: 'invoices:read',
    schema: {
      tags,
      summary: 'Export invoices as CSV',
      description:
        'Streams every invoice of the workspace, or those of one status (as GET shows it) created in `[from, to)`, ' +
        'oldest first, for accounting and spreadsheets; any number of invoices, in constant memory. ' +
        'Invoices created after the export began are not in it. A value starting with =, +, - or @ ' +
        "(only a merchant's externalId or description can) gets a leading ' so that spreadsheets do not run it as a formula.",
      params: WorkspaceParams,
      querystring: InvoiceExportQuery,
      produces: ['text/csv'],
      response: { 200: InvoiceCsv },
    },
    errors: ['invalid_request'],
    examples: { response: CSV },
    portal: { summary: 'Export invoices as CSV' },
    example: { query: '?status=paid&from=2026-11-01T00:00:00Z&to=2026-12-01T00:00:00Z' },
    handler: async (request, reply) => {
      const workspaceId = request.principal!.workspaceId;
      const from = request.query.from === undefined ? undefined : new Date(request.query.from);
      const to = request.query.to === undefined ? undefined : new Date(request.query.to);
      if (from && to && from >= to) throw new AppError('invalid_request', '`to` must be later than `from`.');
      // The schema admits only status names.
      const status = request.query.status as InvoiceStatus | undefined;
      const csv = services.invoiceExport.exportCsv(workspaceId, {
        ...(status && { status }),
        ...(from && { createdFrom: from }),
        ...(to && { createdUntil: to }),
      });
      const range = [from && `from-${from.toISOString().slice(0, 10)}`, to && `to-${to.toISOString().slice(0, 10)}`];
      const name = ['invoices', workspaceId, status, ...range].filter(Boolean).join('-');
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(csv));
    },
  });
}
