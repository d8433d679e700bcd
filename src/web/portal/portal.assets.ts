import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** The hand-written browser files: plain modern JavaScript modules, CSS and an icon; no build step. */
export const CLIENT_DIR = fileURLToPath(new URL('./client/', import.meta.url));
/** Where the browser loads them from; modules import each other relatively inside it. */
export const ASSET_BASE = '/portal/assets/';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface PortalAsset {
  readonly body: Buffer;
  readonly contentType: string;
  /** Strong validator from the content, so a browser revalidates cheaply after a deploy. */
  readonly etag: string;
}

/**
 * Reads every servable file of `dir` once, and each file of `shared` (paths of files another page's
 * folder owns, served here under their bare names too). Only listed extensions are served and the map
 * is keyed by bare file name, so a request can never reach outside these files.
 */
export function loadPortalAssets(
  dir: string = CLIENT_DIR,
  shared: readonly string[] = [],
): ReadonlyMap<string, PortalAsset> {
  const assets = new Map<string, PortalAsset>();
  const files = [
    ...readdirSync(dir)
      .sort()
      .map((name) => path.join(dir, name)),
    ...shared,
  ];
  for (const file of files) {
    const name = path.basename(file);
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (!contentType) continue;
    if (assets.has(name)) throw new Error(`Two client files are named ${name}.`);
    const body = readFileSync(file);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { body, contentType, etag });
  }
  return assets;
}

/**
 * Serves the files of `dir` and `shared` under `base` (read once by `loadPortalAssets`), revalidated
 * with a content ETag so a deploy is picked up at once, outside the OpenAPI document.
 */
export function serveAssets(
  app: FastifyInstance,
  base: string,
  dir: string = CLIENT_DIR,
  shared: readonly string[] = [],
): void {
  const assets = loadPortalAssets(dir, shared);
  app.get<{ Params: { file: string } }>(`${base}:file`, { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get(request.params.file);
    if (!asset) return reply.callNotFound();
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Cache-Control', 'no-cache');
    reply.header('ETag', asset.etag);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.contentType).send(asset.body);
  });
}
