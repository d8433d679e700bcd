import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { RateLimitService } from '../rate-limits/index.js';
import { workspaceListPortalRoutes, workspacePortalRoutes } from './workspace.portal-routes.js';
import { workspaceRoutes } from './workspace.routes.js';
import { WorkspaceService } from './workspace.service.js';

export interface WorkspacesModuleDeps {
  readonly db: Db;
  readonly config: Pick<Config, 'newWorkspaceCredits' | 'maxWorkspacesPerWallet' | 'freeGrantsPerIpPerDay'>;
  readonly limits: RateLimitService;
}

/**
 * Workspaces: the profile (a merchant API plugin), the portal's workspace list (outside any one
 * workspace) and its workspace settings, and the ownership the portal guard checks.
 */
export function workspacesModule(deps: WorkspacesModuleDeps) {
  const workspaces = new WorkspaceService({
    db: deps.db,
    newWorkspaceCredits: deps.config.newWorkspaceCredits,
    maxWorkspacesPerWallet: deps.config.maxWorkspacesPerWallet,
    freeGrantsPerIpPerDay: deps.config.freeGrantsPerIpPerDay,
    limits: deps.limits,
  });
  const routeDeps = { workspaces, config: deps.config };
  return {
    workspaces,
    merchantRoutes: workspaceRoutes(routeDeps),
    walletRoutes: workspaceListPortalRoutes(routeDeps),
    portalRoutes: workspacePortalRoutes(routeDeps),
  };
}
