import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { serveAssets } from '../portal/portal.assets.js';

/** The checkout page's hand-written browser modules and stylesheet; served as they are, no build step. */
export const CHECKOUT_CLIENT_DIR = fileURLToPath(new URL('./client/', import.meta.url));
export const CHECKOUT_ASSET_BASE = '/checkout/assets/';

/**
 * Serves the files of client/ (read once; only .js, .css and .svg, keyed by bare name, so no request
 * reaches outside the folder). Revalidated with a content ETag, so a deploy is picked up at once.
 * Registered outside the checkout API's per-IP rate limit: loading the page must not eat the buyer's
 * budget for polling and paying.
 */
export function registerCheckoutAssets(app: FastifyInstance): void {
  serveAssets(app, CHECKOUT_ASSET_BASE, CHECKOUT_CLIENT_DIR);
}
