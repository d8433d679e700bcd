import type { Workspace } from './workspace.js';

/** The workspace as the portal and the API show it. */
export function presentWorkspace(workspace: Workspace) {
  return { ...workspace, createdAt: workspace.createdAt.toISOString() };
}
