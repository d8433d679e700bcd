import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { rawErrorResponse } from './framework-errors.js';

/** A refused client that neither reads its answer nor closes is cut after this. */
const REFUSED_LINGER_MS = 1000;
const RETRY_AFTER_SECONDS = 5;

/**
 * Bounds the connections one client address holds open at once, so that one client cannot take all the
 * sockets and memory of the process with connections it keeps idle or never finishes (the header and
 * request timeouts end each of those, but only after seconds). The connection over the limit is answered
 * 429 `too_many_connections` in the error contract (with `headers`, from commonHeaders) and closed; it never reaches the HTTP parser, so no
 * request sent on it is served.
 *
 * The address is the TCP peer's, by design even with TRUST_PROXY: a connection is counted before any
 * request on it (and so any X-Forwarded-For) is read. Behind a reverse proxy every connection is the
 * proxy's, and the limit must be raised to what the proxy opens.
 */
export function limitConnectionsPerIp(server: Server, limit: number, headers: Readonly<Record<string, string>>): void {
  const open = new Map<string, number>();
  // Node's HTTP handling is itself a 'connection' listener: it runs only for the connections admitted.
  const serveHttp = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // No address: the client is gone already (reset during the handshake).
    if (address === undefined) return void socket.destroy();
    const count = open.get(address) ?? 0;
    if (count >= limit) return refuse(socket, headers);
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
    for (const listener of serveHttp) listener.call(server, socket);
  });
}

/**
 * Answers and closes without reading a request. The close is graceful (the answer, then FIN), so a
 * client that already sent its request still reads the 429 rather than a reset; what it sends is drained
 * and dropped, and the socket is destroyed when the client closes or after REFUSED_LINGER_MS.
 */
function refuse(socket: Socket, headers: Readonly<Record<string, string>>): void {
  // Without the HTTP parser nothing else listens for errors; a reset here must not end the process.
  socket.on('error', () => {});
  const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
  socket.resume();
  socket.end(
    rawErrorResponse(
      'too_many_connections',
      'Too many connections are open from this address. Reuse an open connection (keep-alive), or retry after the delay in Retry-After.',
      { ...headers, 'Retry-After': String(RETRY_AFTER_SECONDS) },
    ),
  );
}
