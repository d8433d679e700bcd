import type { OperationExamples } from '../../http/openapi-examples.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';

export const statementExamples = {
  get: {
    summary: 'January 2026, a month that has ended',
    response: {
      workspace: { id: EXAMPLE_IDS.workspace, name: 'Acme Studio' },
      month: '2026-01',
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-02-01T00:00:00.000Z',
      final: true,
      generatedAt: '2026-02-03T08:15:00.000Z',
      invoices: {
        created: 42,
        paid: 37,
        cancelled: 2,
        expired: 3,
        paidVolume: [{ currency: 'USDC', network: 'base', invoices: 37, amount: '4625.500000' }],
      },
      credits: {
        openingBalance: 500,
        granted: 0,
        purchased: 1000,
        spent: 121,
        closingBalance: 1379,
        movements: [
          { kind: 'purchase', entries: 1, credited: 1000, debited: 0 },
          { kind: 'invoice.created', entries: 42, credited: 0, debited: 84 },
          { kind: 'invoice.paid', entries: 37, credited: 0, debited: 37 },
        ],
      },
    },
  },
} satisfies Record<string, OperationExamples>;
