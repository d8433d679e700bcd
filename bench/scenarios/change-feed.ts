import { createBenchWorkspace, createInvoices, startRealApp } from '../real-app.js';
import type { Scenario } from '../scenario.js';
import { loadSettings } from '../settings.js';

/**
 * The change feed's server: the real app with BENCH_CHANGE_EVENTS real invoices created through the
 * service, so the feed holds as many `invoice.created` events, each the invoice's full snapshot.
 * bench/changes.ts pages through them.
 */
export const changeFeed: Scenario = {
  name: 'GET /w/:ws/v1/changes',
  measures: 'real app on the embedded PostgreSQL: pages of invoice.created events',
  async prepare() {
    const count = loadSettings(process.env).changeEvents;
    const real = await startRealApp({ NEW_WORKSPACE_CREDITS: String(count * 10) });
    try {
      const { workspaceId, authorization } = await createBenchWorkspace(real.services, [
        'invoices:read',
        'invoices:create',
      ]);
      await createInvoices(real.services, workspaceId, count);
      return {
        app: real.app,
        stop: real.stop,
        database: real.connection,
        request: { method: 'GET', path: `/w/${workspaceId}/v1/changes`, headers: { authorization } },
      };
    } catch (error) {
      await real.stop();
      throw error;
    }
  },
};
