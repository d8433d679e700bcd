import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { loadAssets, serveAssets } from '../assets.js';

/** The checkout page's browser code (bundled from checkout.ts at start) and stylesheet. */
export const CHECKOUT_CLIENT_DIR = fileURLToPath(new URL('./client/', import.meta.url));
export const CHECKOUT_ASSET_BASE = '/checkout/assets/';
/** The checkout page's one script, as the page names it, and the browser entry it is bundled from. */
export const CHECKOUT_SCRIPT = 'checkout.js';
export const CHECKOUT_ENTRY = path.join(CHECKOUT_CLIENT_DIR, 'checkout.ts');

/**
 * Builds and serves the checkout's assets (keyed by bare name, so no request reaches outside them),
 * revalidated with a content ETag, so a deploy is picked up at once. Registered outside the checkout
 * API's per-IP rate limit: loading the page must not eat the buyer's budget for polling and paying.
 */
export async function registerCheckoutAssets(app: FastifyInstance): Promise<void> {
  serveAssets(app, CHECKOUT_ASSET_BASE, await loadAssets(CHECKOUT_CLIENT_DIR, { [CHECKOUT_SCRIPT]: CHECKOUT_ENTRY }));
}
