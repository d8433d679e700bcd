import { WorkspaceParams } from '../../http/common.schemas.js';
import type { BillingService } from './billing.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { BillingView, LEDGER_FIELD_CODES, LedgerPage, LedgerQuery } from './billing.schemas.js';
import type { LedgerEntry } from './credits.js';
import { billingExamples } from './billing.examples.js';

/** What these routes call. */
export interface BillingRouteDeps {
  readonly billing: BillingService;
}

const tags = ['Billing'];

/** GET /billing and its ledger: the API and the portal's billing card and tab. */
export function billingRoutes(services: BillingRouteDeps): SharedRoute[] {
  return [
    sharedRoute({
      method: 'GET',
      url: '/billing',
      permission: 'billing:read',
      schema: {
        tags,
        summary: 'Credit balance, reserve, tariff, maxInvoiceAmount and the packages on offer',
        params: WorkspaceParams,
        response: { 200: BillingView },
      },
      // The merchant API has always listed 400 here (a key in the query string); the portal has no such case.
      errors: ['api_key_in_query'],
      examples: billingExamples.get,
      portal: { errors: [] },
      handler: async (request) => services.billing.get(request.principal!.workspaceId),
    }),

    sharedRoute({
      method: 'GET',
      url: '/billing/ledger',
      permission: 'billing:read',
      fieldErrorCodes: LEDGER_FIELD_CODES,
      schema: {
        tags,
        summary: 'The credit ledger: every movement of the balance and the reserve',
        description:
          'Every credit movement of the workspace, newest first: grants, invoice charges, reserves and their capture or release, ' +
          'purchases and manual grants, each with the balance it left. The balance always equals the sum of `amount` over all entries, ' +
          'the reserve the sum of `reserveChange`. Page with `after` = the `nextCursor` of the previous page; a cursor this ledger ' +
          'did not hand out answers 400 `invalid_cursor`.',
        params: WorkspaceParams,
        querystring: LedgerQuery,
        response: { 200: LedgerPage },
      },
      errors: ['invalid_request', 'invalid_cursor'],
      examples: billingExamples.ledger,
      portal: { description: 'As GET /billing/ledger: newest first.' },
      example: { query: '?limit=10' },
      handler: async (request) => {
        const page = await services.billing.ledger(request.principal!.workspaceId, request.query);
        return { entries: page.entries.map(presentEntry), nextCursor: page.nextCursor };
      },
    }),
  ];
}

function presentEntry(entry: LedgerEntry) {
  return {
    id: entry.seq.toString(),
    kind: entry.kind,
    reason: entry.reason,
    amount: Number(entry.amount),
    reserveChange: Number(entry.reserveChange),
    balanceAfter: Number(entry.balanceAfter),
    reference: entry.reference,
    invoiceNumber: entry.invoiceNumber,
    createdAt: entry.createdAt.toISOString(),
  };
}
