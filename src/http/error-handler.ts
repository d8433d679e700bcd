import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isNodeFailure } from '../chain/rpc-failover-rules.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../shared/errors.js';
import { ERROR_STATUS } from './error-status.js';
import type { FieldRefusal } from './fastify-types.js';

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** The error code each refused request was answered with, for its log line. */
const answeredCodes = new WeakMap<object, string>();

/** The `code` of the error body a request was answered with, if any. */
export function answeredCode(request: FastifyRequest): string | undefined {
  return answeredCodes.get(request);
}

/** Sends the one error body shape: {code, message, requestId, ...fields the case needs}. */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  const { details, fields, retryAfterSeconds } = error.options;
  answeredCodes.set(reply.request, error.code);
  if (retryAfterSeconds !== undefined) reply.header('Retry-After', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  return reply.code(ERROR_STATUS[error.code]).send({
    code: error.code,
    message: error.message,
    requestId: reply.request.id,
    ...(details && details.length > 0 ? { details } : {}),
    ...fields,
  });
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) return sendError(reply, error);
    if (error.validation && error.validationContext === 'body' && request.body === undefined) {
      return sendError(reply, new AppError('invalid_json', 'The request body is empty; send a JSON object.'));
    }
    const known = fromFastifyError(error, request.routeOptions.config?.fieldErrorCodes ?? {});
    if (known) return sendError(reply, known);
    // The client closed the connection before its body arrived: its doing, not a fault here.
    if (error.code === 'ECONNRESET' && request.raw.destroyed) {
      request.log.info({ err: error }, 'client aborted the request before its body arrived');
      return sendError(reply, new AppError('invalid_request', 'The request body was not received in full.'));
    }
    // The chain's nodes did not answer a read the request needed, on any provider: a retry may work.
    if (isNodeFailure(error)) {
      request.log.warn({ err: error }, 'the nodes of a network did not answer');
      return sendError(
        reply,
        new AppError(
          'service_unavailable',
          'The payment network could not be read just now, so the request was not carried out: nothing was signed or sent. Send the same request again in a moment.',
          { retryAfterSeconds: 1 },
        ),
      );
    }
    // Unknown: log everything, tell the client nothing internal.
    request.log.error({ err: error }, 'unhandled error');
    return sendError(
      reply,
      new AppError(
        'internal_error',
        'Something went wrong on our side. Retry with the same request; if it persists, contact the operator with the requestId.',
      ),
    );
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError('not_found', `No resource at ${request.method} ${request.url.split('?')[0]}.`)),
  );
}

function fromFastifyError(
  error: FastifyError,
  fieldCodes: Readonly<Record<string, FieldRefusal>>,
): AppError | undefined {
  if (error.validation) {
    const issues = error.validation as ValidationIssue[];
    const details = issues.map(describeIssue);
    const context = error.validationContext ?? 'request';
    const first = details[0];
    const message = first ? `Invalid ${context}: ${first.path} ${first.message}.` : `Invalid ${context}.`;
    // A typo must not silently drop a field, so unknown fields get a code of their own.
    if (issues[0]?.keyword === 'additionalProperties') return new AppError('unknown_field', message, { details });
    const refusal = first && fieldCodes[first.path];
    if (typeof refusal === 'object') return new AppError(refusal.code, refusal.message);
    return new AppError(refusal ?? 'invalid_request', message, { details });
  }
  const byFastifyCode: Record<string, [ErrorCode, string]> = {
    FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'The request body is not valid JSON.'],
    FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'The request body is empty; send a JSON object.'],
    FST_ERR_CTP_INVALID_MEDIA_TYPE: [
      'unsupported_media_type',
      'Send the body as JSON with Content-Type: application/json.',
    ],
    FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'The request body is too large.'],
    // QUERY (RFC 10008) must say what its body is.
    FST_ERR_ROUTE_MISSING_CONTENT_TYPE: [
      'unsupported_media_type',
      'Send the body as JSON with Content-Type: application/json.',
    ],
  };
  const mapped = error.code ? byFastifyCode[error.code] : undefined;
  if (mapped) return new AppError(mapped[0], mapped[1]);
  if (error.statusCode === 400 && error.name === 'SyntaxError')
    return new AppError('invalid_json', 'The request body is not valid JSON.');
  // Any other refusal of the framework is the client's (a 4xx): still in the contract, never a 500.
  if (
    error.code?.startsWith('FST_ERR_') &&
    error.statusCode !== undefined &&
    error.statusCode >= 400 &&
    error.statusCode < 500
  )
    return new AppError('invalid_request', 'The request could not be handled as sent (its method, headers or body).');
  return undefined;
}

function describeIssue(issue: ValidationIssue): ErrorDetail {
  const base = issue.instancePath ? issue.instancePath.slice(1).replaceAll('/', '.') : '';
  if (issue.keyword === 'additionalProperties') {
    const field = String(issue.params?.additionalProperty);
    return { path: base ? `${base}.${field}` : field, message: 'is not a known field' };
  }
  if (issue.keyword === 'required') {
    const field = String(issue.params?.missingProperty);
    return { path: base ? `${base}.${field}` : field, message: 'is required' };
  }
  return { path: base || '(body)', message: issue.message ?? 'is invalid' };
}
