import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { SharedRoute, WorkspaceRoute } from '../http/workspace-route.js';
import type { Services } from './services.js';

/** Every route the modules give that app.ts registers in a guarded scope, as createServices lists them. */
export interface RouteTable extends WorkspaceRouteTable {
  /** Plugins of the merchant API scope only (batches, payment intents, PUT /workspace, the change feed). */
  readonly merchantOnly: readonly FastifyPluginAsyncTypebox[];
  /** Wallet sign-in, under /auth. */
  readonly auth: FastifyPluginAsyncTypebox;
  /** The portal's routes on the signed-in wallet, outside any one workspace (its workspace list). */
  readonly walletPortal: FastifyPluginAsyncTypebox;
}

export interface WorkspaceRouteTable {
  /** Served to both audiences: in the merchant API scope and in the portal's workspace scope. */
  readonly shared: readonly SharedRoute[];
  /** Served in the portal's workspace scope only. */
  readonly portalOnly: readonly WorkspaceRoute[];
}

/**
 * Every route on one workspace that both audiences share or that the portal alone has. app.ts registers
 * exactly these into the guarded scopes, and the portal security test walks the same table.
 */
export function workspaceRouteTable(services: Services): WorkspaceRouteTable {
  return services.routes;
}
