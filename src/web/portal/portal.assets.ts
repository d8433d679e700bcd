import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { loadAssets, serveAssets } from '../assets.js';

/** The portal's browser code (bundled from app.ts at start), its stylesheets and its icon. */
export const CLIENT_DIR = fileURLToPath(new URL('./client/', import.meta.url));
/** Where the browser loads them from. */
export const ASSET_BASE = '/portal/assets/';
/** The portal's one script, as the pages name it, and the browser entry it is bundled from. */
export const PORTAL_SCRIPT = 'app.js';
export const PORTAL_ENTRY = path.join(CLIENT_DIR, 'app.ts');

/**
 * Builds and serves the portal's assets, revalidated with a content ETag so a deploy is picked up at once.
 * Only these names are served: the TypeScript sources and anything outside the folder never are.
 */
export async function registerPortalAssets(app: FastifyInstance): Promise<void> {
  serveAssets(app, ASSET_BASE, await loadAssets(CLIENT_DIR, { [PORTAL_SCRIPT]: PORTAL_ENTRY }));
}
