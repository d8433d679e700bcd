import { WorkspaceParams } from '../../http/common.schemas.js';
import type { StatementService } from './statement.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { formatUsdc } from '../../shared/money.js';
import { statementExamples } from './statement.examples.js';
import { StatementQuery, StatementView } from './statement.schemas.js';
import type { Statement } from './statement.service.js';

/** What these routes call. */
export interface StatementRouteDeps {
  readonly statements: StatementService;
}

/** GET /statement: the API, and the portal's Statement tab (printed, or downloaded as CSV). */
export function statementRoutes(services: StatementRouteDeps): SharedRoute[] {
  return [
    sharedRoute({
      method: 'GET',
      url: '/statement',
      // Paid volume is payment data and the credit lines are billing data: the key needs to read both.
      permission: ['billing:read', 'payments:read'],
      schema: {
        tags: ['Billing'],
        summary: 'Monthly statement: invoices created and paid, paid volume, credits in and out',
        description:
          'One calendar month (UTC, from the first instant of the month up to, not including, the next): invoices created, ' +
          'paid (by the time they were paid) with their volume per currency and network, cancelled and expired; and the credits: ' +
          'the balance when the month began, what was granted, purchased and spent (by ledger entry kind), and the balance when it ' +
          'ended, always opening + granted + purchased − spent = closing. The current month is counted up to now (`final` false). ' +
          'Amounts are decimal strings with 6 decimals.',
        params: WorkspaceParams,
        querystring: StatementQuery,
        response: { 200: StatementView },
      },
      errors: ['invalid_request'],
      examples: statementExamples.get,
      portal: { description: 'As GET /statement: the Statement tab.' },
      example: { query: '?month=2026-01' },
      handler: async (request) =>
        presentStatement(await services.statements.forMonth(request.principal!.workspaceId, request.query.month)),
    }),
  ];
}

function presentStatement(statement: Statement) {
  const { invoices, credits } = statement;
  return {
    workspace: statement.workspace,
    month: statement.month,
    from: statement.from.toISOString(),
    to: statement.to.toISOString(),
    final: statement.final,
    generatedAt: statement.generatedAt.toISOString(),
    invoices: {
      ...invoices,
      paidVolume: invoices.paidVolume.map((volume) => ({ ...volume, amount: formatUsdc(volume.amount) })),
    },
    credits: {
      openingBalance: Number(credits.openingBalance),
      granted: Number(credits.granted),
      purchased: Number(credits.purchased),
      spent: Number(credits.spent),
      closingBalance: Number(credits.closingBalance),
      movements: credits.movements.map((movement) => ({
        kind: movement.kind,
        entries: movement.entries,
        credited: Number(movement.credited),
        debited: Number(movement.debited),
      })),
    },
  };
}
