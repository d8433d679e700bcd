import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../shared/errors.js';
import { randomToken } from '../shared/ids.js';
import { DEFAULT_CACHE_CONTROL } from './common-headers.js';
import { sendError } from './error-handler.js';
import { ERROR_STATUS } from './error-status.js';

type Headers = Readonly<Record<string, string>>;

/**
 * The router refuses some URLs before any hook runs (a percent-encoding that is not UTF-8, a path
 * segment over 100 characters). They still get the one error contract: {code, message, requestId} and
 * the headers every answer carries (`headers`, from commonHeaders).
 */
export function frameworkErrorAnswer(headers: Headers) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.headers({ ...headers, 'X-Request-ID': request.id, 'Cache-Control': DEFAULT_CACHE_CONTROL });
    const refusal =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new AppError(
            'uri_too_long',
            'A path segment is longer than 100 characters; no id of this service is that long.',
          )
        : new AppError('invalid_url', 'The URL is not valid: a percent-encoded part does not decode to UTF-8 text.');
    void sendError(reply, refusal);
  };
}

/**
 * Errors of the HTTP parser and its timeouts happen before there is a request: headers too large,
 * malformed framing (e.g. Content-Length with Transfer-Encoding), a client too slow to send its request.
 * Answered on the raw socket, in the same contract and with the same headers, then the connection is closed.
 */
export function clientErrorAnswer(headers: Headers) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [code, message]: [ErrorCode, string] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', 'The request was not received in time; send it again without pausing.']
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? ['headers_too_large', 'The request headers are too large (16 KB at most).']
          : ['invalid_request', 'The request is not valid HTTP/1.1 (its framing or headers could not be parsed).'];
    if (socket.writable) socket.write(rawErrorResponse(code, message, headers));
    socket.destroy(error);
  };
}

/** The error contract's body: {code, message, requestId}. */
export function errorBodyText(code: ErrorCode, message: string, requestId: string): string {
  return JSON.stringify({ code, message, requestId });
}

/**
 * A whole HTTP/1.1 error response in the one contract ({code, message, requestId}, X-Request-ID and
 * `headers`: commonHeaders and what the case adds), for answers written straight to a socket because
 * there is no request to reply to. Never stored by a cache; always closes.
 */
export function rawErrorResponse(
  code: ErrorCode,
  message: string,
  headers: Headers,
  requestId = `req_${randomToken()}`,
): string {
  const status = ERROR_STATUS[code];
  const body = errorBodyText(code, message, requestId);
  const lines = Object.entries({
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-ID': requestId,
    'Cache-Control': DEFAULT_CACHE_CONTROL,
    ...headers,
    Connection: 'close',
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}\r\n${body}`;
}
