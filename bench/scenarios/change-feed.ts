import type { Db } from '../../src/db/database.js';
import type { WalletAddress, WorkspaceId } from '../../src/shared/ids.js';
import { createBenchWorkspace, createInvoices, startRealApp, type RealApp } from '../real-app.js';
import type { PreparedScenario, Scenario } from '../scenario.js';
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
    return feedServer(await startRealApp({ NEW_WORKSPACE_CREDITS: String(count * 10) }), count);
  },
};

/**
 * `real` with a workspace (owned by `owner`, when given) of `count` invoices created through the service,
 * then `after` (given the workspace), asked for its feed with a key that may also create; stopped if any
 * of it fails.
 */
export async function feedServer(
  real: RealApp,
  count: number,
  owner?: WalletAddress,
  after?: (db: Db, workspaceId: WorkspaceId) => Promise<void>,
): Promise<PreparedScenario> {
  try {
    const { workspaceId, authorization } = await createBenchWorkspace(
      real.services,
      ['invoices:read', 'invoices:create'],
      owner,
    );
    await createInvoices(real.services, workspaceId, count);
    await after?.(real.services.db, workspaceId);
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
}
