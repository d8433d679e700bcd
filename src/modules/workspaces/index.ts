/** What other modules may use of workspaces; everything else is the module's own. */
export { NAME_MAX_CHARS, PORTAL_DESCRIPTION_MAX_CHARS } from './workspace.js';
export { findWorkspace, lockWorkspace } from './workspace.repo.js';
export { WorkspaceService } from './workspace.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { WorkspaceView } from './workspace.schemas.js';
export { requireOwnedWorkspace } from './workspace.guard.js';
export { workspacesModule } from './workspaces.module.js';
// For buyers' pages: the link behind a support contact, and readable button colours from the accent colour.
export { SUPPORT_EMAIL_MAX_CHARS, SUPPORT_URL_MAX_CHARS, supportContactHref } from './support-contact.js';
export { accentButtonColors, contrastRatio, normaliseAccentColor, type ButtonColors } from './accent-color.js';
