import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A JSON-RPC pass-through on loopback in front of a node, counting what its client asks of it: the
 * bench's service, and the tests that count node calls (test/support/rpc-proxy.ts).
 */
export interface RpcCounter {
  /** `http://127.0.0.1:<port>`: the client's RPC URL. */
  readonly url: string;
  /** Calls forwarded since the last reset, by method (each call of a batch counts). */
  calls(): Readonly<Record<string, number>>;
  total(): number;
  reset(): void;
  close(): Promise<void>;
}

type Call = { method?: string };

/** Forwards every POST body to `target` unchanged and its answer back, after counting its calls. */
export async function startRpcCounter(target: string): Promise<RpcCounter> {
  const counts = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const body = Buffer.concat(chunks);
      try {
        for (const call of [JSON.parse(body.toString('utf8')) as Call | Call[]].flat())
          counts.set(call.method ?? '?', (counts.get(call.method ?? '?') ?? 0) + 1);
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
    calls: () => Object.fromEntries(counts),
    total: () => [...counts.values()].reduce((sum, count) => sum + count, 0),
    reset: () => counts.clear(),
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
