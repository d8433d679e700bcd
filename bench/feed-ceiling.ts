import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pageUrl, type FeedTarget } from './feed-reader.js';

export interface BareFeedServer extends FeedTarget {
  close(): Promise<void>;
}

/**
 * Every page of the target's feed, as the bytes it answered, by the cursor each was asked with: what
 * the bare server sends.
 */
export async function collectPages(target: FeedTarget): Promise<Map<string, Buffer>> {
  const pages = new Map<string, Buffer>();
  let cursor = '0';
  for (;;) {
    const response = await fetch(pageUrl(target, cursor), { headers: target.request.headers });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`collecting the feed's pages: ${response.status} ${body}`);
    pages.set(cursor, body);
    const page = JSON.parse(body.toString()) as { nextCursor: string; hasMore: boolean };
    if (!page.hasMore) return pages;
    cursor = page.nextCursor;
  }
}

/**
 * The reader's own bound: a bare `node:http` server on 127.0.0.1 that answers each page with the bytes
 * collected from the service, held in memory, and does nothing else (no authentication, no lookup but
 * the cursor's). Whatever a reader loses against it is the reader's and the machine's, not the service's.
 */
export async function serveBarePages(pages: Map<string, Buffer>, path: string): Promise<BareFeedServer> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const page = url.pathname === path ? pages.get(url.searchParams.get('after') ?? '') : undefined;
    const body = url.pathname === '/readyz' ? Buffer.from('{"status":"ok"}') : page;
    if (body === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    response.end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    request: { method: 'GET', path, headers: {} },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
