import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  readonly method: string;
  /** Fastify's form: `/w/:workspaceId/v1/invoices/:invoiceId`. */
  readonly path: string;
}

/**
 * Every route the app serves, documented or not (checkout pages, x402, assets, the demo wallet), read
 * from Fastify's own route tree, so a new route is in every suite built on this from the day it exists.
 * HEAD routes Fastify adds for GETs are left out.
 */
export function routeTable(app: FastifyInstance): RouteEntry[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const prefixes: string[] = [];
  const routes: RouteEntry[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2];
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) if (method !== 'HEAD') routes.push({ method, path });
  }
  return routes;
}
