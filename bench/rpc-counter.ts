import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A JSON-RPC pass-through on loopback in front of the node, counting what the service asks of it. */
export interface RpcCounter {
  /** `http://127.0.0.1:<port>`: the service's RPC URL. */
  readonly url: string;
  /** Calls forwarded so far (each call of a batch counts), in all and by method. */
  total(): number;
  byMethod(): ReadonlyMap<string, number>;
  close(): Promise<void>;
}

type Call = { method?: string };

/** Forwards every POST body to `target` unchanged and its answer back, after counting its calls. */
export async function startRpcCounter(target: string): Promise<RpcCounter> {
  const counts = new Map<string, number>();
  let total = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const body = Buffer.concat(chunks);
      try {
        for (const call of [JSON.parse(body.toString('utf8')) as Call | Call[]].flat()) {
          total += 1;
          counts.set(call.method ?? '?', (counts.get(call.method ?? '?') ?? 0) + 1);
        }
      } catch {
        // Not JSON: forwarded as it is, and the node answers its parse error.
      }
      void forward(target, body).then(
        ({ status, text }) => response.writeHead(status, { 'content-type': 'application/json' }).end(text),
        (error: unknown) => response.writeHead(502).end(String(error)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    total: () => total,
    byMethod: () => new Map(counts),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function forward(target: string, body: Buffer): Promise<{ status: number; text: string }> {
  const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: answer.status, text: await answer.text() };
}
