import type { FastifyInstance } from 'fastify';
import { looksLikeKey } from '../shared/api-key-text.js';
import { AppError } from '../shared/errors.js';
import { findUnstorable, isUnstorable, unstorable } from '../shared/storable-json.js';

/**
 * One input boundary for every route: a string from the path, the query or the JSON body that holds
 * NUL or an unpaired surrogate, or a body nested deeper than 32 levels (MAX_JSON_DEPTH), is refused with 400
 * `invalid_request` naming the field — before authentication, so no such value reaches a query.
 * A route with `config.checksItemsAlone` (a batch) takes the body's `items` array out of this check and
 * checks each item itself (findUnstorable), so that one bad item fails alone; the rest of its body is
 * checked here as on any route.
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
    if (request.body === undefined) return;
    const refused = findUnstorable(request.body, {
      path: '',
      depth: 0,
      leaveOut: request.routeOptions.config.checksItemsAlone ? itemsOf(request.body) : undefined,
    });
    if (refused) throw refused;
  });
}

function checkStrings(values: unknown, part: string): void {
  if (!values || typeof values !== 'object') return;
  for (const [name, value] of Object.entries(values)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' && isUnstorable(item)) throw unstorable(`${part} parameter ${name}`);
    }
  }
}

/**
 * The `items` array of a batch body: left to the route, which checks each item itself so that a bad
 * item fails alone. Anything else (a body that is not an object, `items` not an array) is the guard's.
 */
function itemsOf(body: unknown): unknown[] | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const items = (body as { items?: unknown }).items;
  return Array.isArray(items) ? items : undefined;
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
