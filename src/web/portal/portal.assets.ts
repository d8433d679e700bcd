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
 * Reads every servable file of `dir` once. Only listed extensions are served and the map is keyed by
 * bare file name, so a request can never reach outside the directory.
 */
export function loadPortalAssets(dir: string = CLIENT_DIR): ReadonlyMap<string, PortalAsset> {
  const assets = new Map<string, PortalAsset>();
  for (const name of readdirSync(dir).sort()) {
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (!contentType) continue;
    const body = readFileSync(path.join(dir, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { body, contentType, etag });
  }
  return assets;
}

/**
 * Serves the files of `dir` under `base` (read once by `loadPortalAssets`), revalidated with a content
 * ETag so a deploy is picked up at once, outside the OpenAPI document.
 */
export function serveAssets(app: FastifyInstance, base: string, dir: string = CLIENT_DIR): void {
  const assets = loadPortalAssets(dir);
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
