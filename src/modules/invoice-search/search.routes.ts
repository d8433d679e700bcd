import { WorkspaceParams } from '../../http/common.schemas.js';
import type { InvoiceSearchService } from './search.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { SEARCH_FIELD_CODES, SearchPage, SearchQuery } from './search.schemas.js';
import { searchExamples } from './search.examples.js';

/** What these routes call. */
export interface InvoiceSearchRouteDeps {
  readonly invoiceSearch: InvoiceSearchService;
}

const DESCRIPTION = [
  "Finds this workspace's invoices by exact value — never by substring. `q` may be:",
  '- an invoice number: `INV-000042` (letter case and zero padding do not matter: `inv-42` works too);\n' +
    '- an order reference (`externalId`), compared exactly and case-sensitively; many invoices may share one;\n' +
    "- the `checkoutUrl` or x402 `url` of an invoice of this workspace (on this service's address; a query string is ignored);\n" +
    '- an invoice id (`inv_…`);\n' +
    '- a transaction hash (`0x` + 64 hex digits, any case): the invoices whose payment attempts used that transaction ' +
    '(a transfer you submitted, or the settlement of an x402 or checkout authorization).',
  'A text that fits several kinds is looked up as each, and the answer is their union: a bare number such as `42` is looked up as an ' +
    'order reference only (write `INV-42` for the invoice number). Invoices of other workspaces are never found, not even by their links.',
  'Results are ordered by invoice number, newest first, `limit` per page (default 25, at most 100). `nextCursor` is null when there is ' +
    'nothing more; otherwise pass it as `cursor` for the next page — and keep following it even if a page comes back empty. ' +
    'A cursor this search did not hand out answers 400 `invalid_cursor`. See docs/invoices.md.',
].join('\n\n');

/** GET /invoice-search: the API, and the portal's search box with the same rules and pages. */
export function invoiceSearchRoutes(services: InvoiceSearchRouteDeps): SharedRoute[] {
  return [
    sharedRoute({
      method: 'GET',
      url: '/invoice-search',
      permission: 'invoices:read',
      fieldErrorCodes: SEARCH_FIELD_CODES,
      schema: {
        tags: ['Invoices'],
        summary: 'Find invoices by number, order reference, link or transaction',
        description: DESCRIPTION,
        params: WorkspaceParams,
        querystring: SearchQuery,
        response: { 200: SearchPage },
      },
      errors: ['invalid_request', 'invalid_cursor'],
      examples: searchExamples.search,
      portal: { description: 'As GET /invoice-search: exact matches only, newest first.' },
      example: { query: '?q=INV-1' },
      handler: async (request) => services.invoiceSearch.search(request.principal!.workspaceId, request.query),
    }),
  ];
}
