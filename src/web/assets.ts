import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bundleBrowserScript } from './browser-bundle.js';

export interface Asset {
  readonly body: Buffer;
  readonly contentType: string;
  /** Strong validator from the content, so a browser revalidates cheaply after a deploy. */
  readonly etag: string;
}

const SCRIPT_TYPE = 'text/javascript; charset=utf-8';

/** The files served as they are; scripts are never read from the folder, they are built. */
const STATIC_TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export function asset(body: Buffer, contentType: string): Asset {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, contentType, etag };
}

/**
 * A page's assets: the stylesheets and icons of `dir`, read once, and each script of `scripts` (served
 * name → browser entry file) bundled by esbuild. Keyed by bare file name, so a request can never reach
 * outside these files, and the TypeScript sources are never served.
 */
export async function loadAssets(
  dir: string,
  scripts: Readonly<Record<string, string>>,
): Promise<ReadonlyMap<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir).sort()) {
    const contentType = STATIC_TYPES[path.extname(name)];
    if (contentType) assets.set(name, asset(readFileSync(path.join(dir, name)), contentType));
  }
  for (const [name, entry] of Object.entries(scripts)) {
    if (assets.has(name)) throw new Error(`Two assets are named ${name}.`);
    assets.set(name, await scriptAsset(entry));
  }
  return assets;
}

/** A bundled script as an asset (the demo wallet's, served outside an asset folder). */
export async function scriptAsset(entry: string): Promise<Asset> {
  return asset((await bundleBrowserScript(entry)).code, SCRIPT_TYPE);
}

/** Answers with `asset`, or 304 when the browser's copy is current; `no-cache` so a deploy is picked up at once. */
export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Cache-Control', 'no-cache');
  reply.header('ETag', asset.etag);
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.type(asset.contentType).send(asset.body);
}

/** Serves `assets` under `base` (`/portal/assets/<name>`), outside the OpenAPI document. */
export function serveAssets(app: FastifyInstance, base: string, assets: ReadonlyMap<string, Asset>): void {
  app.get<{ Params: { file: string } }>(`${base}:file`, { schema: { hide: true } }, async (request, reply) => {
    const found = assets.get(request.params.file);
    if (!found) return reply.callNotFound();
    return sendAsset(request, reply, found);
  });
}
