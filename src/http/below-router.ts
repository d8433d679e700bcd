import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.js';
import { DEFAULT_CACHE_CONTROL } from './common-headers.js';
import { ERROR_STATUS } from './error-status.js';
import { errorBodyText, rawErrorResponse } from './framework-errors.js';
import { requestIdFor } from './request-id.js';

type Headers = Readonly<Record<string, string>>;

/** The methods some route of this service answers; CONNECT is none of them. */
const SERVED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';

/**
 * Requests Node's HTTP server would refuse or drop on its own, before Fastify sees them, answered in the
 * error contract with the headers every answer carries (`headers`, from commonHeaders):
 * - an `Expect` other than `100-continue` (Node would answer a bare 417): 417 `expectation_failed`;
 * - `CONNECT` (Node would close the connection without a word): 405 `method_not_allowed`, then closed.
 * `Expect: 100-continue` keeps Node's own handling (100 Continue, then the request is served).
 * An HTTP/1.1 request without Host reaches the app (the server is made with requireHostHeader: false)
 * and is refused by refuseMissingHost.
 */
export function answerBelowRouter(server: Server, headers: Headers): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const message = `Only "Expect: 100-continue" is supported; send the request again without "Expect: ${String(request.headers.expect).slice(0, 40)}".`;
    answer(response, new AppError('expectation_failed', message), requestIdFor(request), headers);
  });
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    // Nothing else listens on this socket any more: a reset must not end the process.
    socket.on('error', () => {});
    const message = 'CONNECT is not served: this is not a proxy.';
    socket.end(
      rawErrorResponse('method_not_allowed', message, { ...headers, Allow: SERVED_METHODS }, requestIdFor(request)),
    );
  });
}

/**
 * HTTP/1.1 requires Host (RFC 9112, 3.2); HTTP/1.0 may leave it out. The first hook after the one that
 * sets the answer's headers, so the refusal carries them.
 */
export function refuseMissingHost(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined)
      throw new AppError('invalid_request', 'An HTTP/1.1 request must carry a Host header.');
  });
}

/**
 * A request that arrives while the app closes (pipelined, or on a connection that was busy when the close
 * began) is refused with 503 `service_unavailable` in the contract, and its connection closed, so that the
 * client retries on another instance; Fastify's own answer here (return503OnClosing) is not in the
 * contract. The first hook after the one that sets the answer's headers.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('Connection', 'close');
    throw new AppError('service_unavailable', 'This instance is shutting down: send the request again.', {
      retryAfterSeconds: 1,
    });
  });
}

/** Answers and closes: the request's body, if any, is not read. */
function answer(response: ServerResponse, error: AppError, requestId: string, headers: Headers): void {
  const body = errorBodyText(error.code, error.message, requestId);
  response.writeHead(ERROR_STATUS[error.code], {
    ...headers,
    'X-Request-ID': requestId,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': DEFAULT_CACHE_CONTROL,
    Connection: 'close',
  });
  response.end(body);
}
