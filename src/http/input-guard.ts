import type { FastifyInstance } from 'fastify';
import { looksLikeKey } from '../modules/api-keys/index.js';
import { AppError } from '../shared/errors.js';

/** Deeper JSON than this is refused before anything walks it recursively (hashing, validation). */
export const MAX_JSON_DEPTH = 32;

/** NUL, which PostgreSQL text cannot hold, and UTF-16 halves that are not a pair (no UTF-8 encoding). */
// eslint-disable-next-line no-control-regex -- finding NUL is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * One input boundary for every route: a string from the path, the query or the JSON body that holds
 * NUL or an unpaired surrogate, or a body nested deeper than MAX_JSON_DEPTH, is refused with 400
 * `invalid_request` naming the field — before authentication, so no such value reaches a query.
 * A credential in the query string is refused the same way on every route.
 */
export function guardInput(app: FastifyInstance): void {
  acceptEmptyJson(app);
  app.addHook('onRequest', async (request) => {
    checkStrings(request.params, 'path');
    checkStrings(request.query, 'query');
    refuseCredentialInQuery(request.query);
  });
  app.addHook('preValidation', async (request) => {
    if (request.body !== undefined) checkBody(request.body);
  });
}

function checkStrings(values: unknown, part: string): void {
  if (!values || typeof values !== 'object') return;
  for (const [name, value] of Object.entries(values)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' && UNSTORABLE.test(item)) throw unstorable(`${part} parameter ${name}`);
    }
  }
}

/** Iterative, so that the depth check itself cannot overflow the stack. */
function checkBody(body: unknown): void {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) throw unstorable(path || 'body');
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw new AppError('invalid_request', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`, {
        details: [{ path: path || '(body)', message: 'is nested too deep' }],
      });
    }
    for (const [key, child] of Object.entries(value)) {
      const childPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (UNSTORABLE.test(key)) throw unstorable(childPath);
      pending.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
}

/**
 * A key or Bearer value in a URL ends up in logs, proxies and browser history, on every route: refuse it
 * loudly so it gets rotated. (Request logs never carry the query string.)
 */
function refuseCredentialInQuery(query: unknown): void {
  if (!query || typeof query !== 'object') return;
  const values = Object.values(query).flat();
  if (values.some((value) => typeof value === 'string' && looksLikeKey(value))) {
    throw new AppError(
      'api_key_in_query',
      'API keys are accepted only in the Authorization header, never in the URL. A key sent in a URL may be exposed in logs: revoke it and create a new one.',
    );
  }
}

function unstorable(field: string): AppError {
  return new AppError(
    'invalid_request',
    `${field} holds a NUL character or an unpaired UTF-16 surrogate, which no field accepts.`,
    {
      details: [{ path: field, message: 'holds a NUL character or an unpaired surrogate' }],
    },
  );
}

/**
 * Many HTTP clients send `Content-Type: application/json` on every POST, also with no body (cancel,
 * renew, webhook test). An empty body is "no body" rather than malformed JSON; a route whose body is
 * required still refuses it (error-handler.ts answers invalid_json for a missing required body).
 */
function acceptEmptyJson(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body === '' ? done(null, undefined) : parseJson(request, body.toString(), done),
  );
}
