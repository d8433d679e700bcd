import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

/** A JSON-RPC proxy on loopback in front of a node: it forwards every call and counts them by method. */
export interface RpcProxy {
  readonly url: string;
  /** Calls forwarded since the last reset, by method (a batch counts each of its calls). */
  calls(): Readonly<Record<string, number>>;
  total(): number;
  reset(): void;
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const counts = new Map<string, number>();
  const server = createServer((request, response) => {
    void (async () => {
      const body = await read(request);
      for (const call of [JSON.parse(body) as { method?: string } | { method?: string }[]].flat())
        counts.set(call.method ?? '?', (counts.get(call.method ?? '?') ?? 0) + 1);
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(await answer.text());
    })().catch((error: unknown) => {
      response.writeHead(502);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => Object.fromEntries(counts),
    total: () => [...counts.values()].reduce((sum, count) => sum + count, 0),
    reset: () => counts.clear(),
  };
}

async function read(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
