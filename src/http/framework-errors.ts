import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../shared/errors.js';
import { randomToken } from '../shared/ids.js';
import { API_VERSION } from './api-version.js';
import { sendError } from './error-handler.js';
import { ERROR_STATUS } from './error-status.js';

/**
 * The router refuses some URLs before any hook runs (a percent-encoding that is not UTF-8, a path
 * segment over 100 characters). They still get the one error contract: both headers and
 * {code, message, requestId}.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-ID', request.id).header('X-API-Version', API_VERSION);
  const refusal =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError(
          'uri_too_long',
          'A path segment is longer than 100 characters; no id of this service is that long.',
        )
      : new AppError('invalid_url', 'The URL is not valid: a percent-encoded part does not decode to UTF-8 text.');
  void sendError(reply, refusal);
}

/**
 * Errors of the HTTP parser and its timeouts happen before there is a request: headers too large,
 * malformed framing (e.g. Content-Length with Transfer-Encoding), a client too slow to send its request.
 * Answered on the raw socket, in the same contract, then the connection is closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message]: [ErrorCode, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['request_timeout', 'The request was not received in time; send it again without pausing.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ['headers_too_large', 'The request headers are too large (16 KB at most).']
        : ['invalid_request', 'The request is not valid HTTP/1.1 (its framing or headers could not be parsed).'];
  if (socket.writable) socket.write(rawErrorResponse(code, message));
  socket.destroy(error);
}

/**
 * A whole HTTP/1.1 error response in the one contract (both headers, {code, message, requestId}), for
 * answers written straight to a socket because there is no request to reply to. Always closes.
 */
export function rawErrorResponse(
  code: ErrorCode,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): string {
  const status = ERROR_STATUS[code];
  const requestId = `req_${randomToken()}`;
  const body = JSON.stringify({ code, message, requestId });
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-ID: ${requestId}\r\nX-API-Version: ${API_VERSION}\r\n${extra}Connection: close\r\n\r\n${body}`
  );
}
