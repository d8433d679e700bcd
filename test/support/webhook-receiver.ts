import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll } from 'vitest';

export interface ReceivedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly eventId: string;
}

/** How the receiver answers one request: a status, a redirect, never, or by dropping the connection. */
export type Behaviour = { status: number; delayMs?: number } | 'redirect' | 'hang' | 'close';

/**
 * A real HTTP receiver on loopback that records every request it gets, answering as `behave` says
 * (200 by default). Closed after the file's tests.
 */
export async function startTestReceiver(
  behave: (request: ReceivedRequest, index: number) => Behaviour = () => ({ status: 200 }),
) {
  const received: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let interrupted = 0;
  const server = createServer((req, res) => {
    // The sender went away before the answer was written: e.g. its worker was killed mid-delivery.
    res.on('close', () => {
      if (!res.writableFinished) interrupted++;
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        eventId: String(req.headers['x-payment-event-id']),
      };
      received.push(request);
      answer(res, behave(request, received.length - 1));
    });
  });
  server.on('connection', (socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    connections: () => connections,
    interrupted: () => interrupted,
    set behave(next: (request: ReceivedRequest, index: number) => Behaviour) {
      behave = next;
    },
  };
}

function answer(res: ServerResponse, behaviour: Behaviour): void {
  if (behaviour === 'hang') return;
  if (behaviour === 'close') {
    res.socket?.destroy();
    return;
  }
  if (behaviour === 'redirect') {
    res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end();
    return;
  }
  const send = () =>
    res.writeHead(behaviour.status, { 'content-type': 'text/plain' }).end('receiver says: secret internals');
  if (behaviour.delayMs) setTimeout(send, behaviour.delayMs);
  else send();
}

/** Whether the request carries a valid `v1` signature of its timestamp and raw body under `secret`. */
export function signatureValid(request: ReceivedRequest, secret: string): boolean {
  const timestamp = String(request.headers['x-payment-timestamp']);
  const expected = createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex');
  return request.headers['x-payment-signature'] === `v1=${expected}`;
}
