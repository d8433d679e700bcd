import { Type } from '@sinclair/typebox';

const Counts = {
  paidAmount: Type.String({ description: 'USDC paid (sum of paid invoices by their paidAt), six decimals.' }),
  paidInvoices: Type.Integer({ description: 'Invoices paid.' }),
  webhookAttempts: Type.Integer({ description: 'Webhook delivery attempts, test sends included.' }),
  webhookSucceeded: Type.Integer({ description: 'Attempts the receiver acknowledged with a 2xx.' }),
};

export const DashboardView = Type.Object({
  from: Type.String({ format: 'date-time', description: 'Midnight UTC of the first day.' }),
  days: Type.Array(Type.Object({ date: Type.String({ description: 'UTC day, YYYY-MM-DD.' }), ...Counts }), {
    description: 'Every day of the window, oldest first; days without activity are zeros.',
  }),
  totals: Type.Object(Counts, { description: 'Sums over the window.' }),
});
