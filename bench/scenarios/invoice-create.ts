import { createBenchWorkspace, startRealApp } from '../real-app.js';
import type { Scenario } from '../scenario.js';
import { helloPostCeiling } from './hello-post-ceiling.js';

/** POST /invoices, each request with its own Idempotency-Key: a real create every time, never a replay. */
export const invoiceCreate: Scenario = {
  name: 'POST /w/:ws/v1/invoices',
  measures:
    'real app on the embedded PostgreSQL: key lookup (1 query), validation, create_invoice_group (1 call per group: number, credits, keys claimed with their answers, invoice, invoice.created event through append_event; groups pipelined on one connection) committed with fsync',
  ceiling: helloPostCeiling,
  async prepare() {
    // The default grant of 100 credits would run out within the warm-up and turn the rest into 402s.
    const real = await startRealApp({ NEW_WORKSPACE_CREDITS: '1000000000' });
    try {
      const { workspaceId, authorization } = await createBenchWorkspace(real.services, ['invoices:create']);
      return {
        app: real.app,
        stop: real.stop,
        request: {
          method: 'POST',
          path: `/w/${workspaceId}/v1/invoices`,
          headers: { authorization, 'content-type': 'application/json', 'idempotency-key': 'bench-[<id>]' },
          body: JSON.stringify({ amount: '1.00' }),
          uniqueIds: true,
        },
      };
    } catch (error) {
      await real.stop();
      throw error;
    }
  },
};
