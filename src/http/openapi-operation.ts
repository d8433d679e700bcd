import { SESSION_COOKIE } from './portal-guards.js';

/** The merchant API's scheme: the workspace's API key as a Bearer token. */
export const BEARER_SECURITY = [{ bearerAuth: [] }];

/** The portal's scheme in the API document: the HttpOnly session cookie a wallet sign-in sets. */
export const PORTAL_SESSION_SCHEME = {
  type: 'apiKey',
  in: 'cookie',
  name: SESSION_COOKIE,
  description: 'The session a wallet sign-in (`POST /auth/verify`) sets; portal requests only, from this origin.',
} as const;

/** Operations on the signed-in session outside /portal/api. */
const SESSION_PATHS = new Set(['/auth/logout', '/auth/session']);

/**
 * What every operation of the API document carries, where its route does not say it: an `operationId`
 * (generated clients name their methods after it) and its security, the portal's session for portal
 * operations, none for public ones (checkout, x402, sign-in, health), which their own rules guard.
 */
export function withOperationDefaults<
  S extends { operationId?: string; security?: unknown; headers?: unknown; querystring?: unknown },
>(schema: S, method: string, url: string): S {
  const portal = url.startsWith('/portal/api/') || SESSION_PATHS.has(url);
  return {
    ...schema,
    operationId: schema.operationId ?? operationIdOf(method, url),
    security: schema.security ?? (portal ? [{ portalSession: [] }] : []),
    ...(!portal && schema.headers !== undefined && { headers: idempotencyKeyRequired(schema.headers) }),
    ...(schema.querystring !== undefined && { querystring: defaultsOptional(schema.querystring) }),
  };
}

/**
 * A query field with a default is required to validation (the handler always gets a value, validation
 * fills it in) and optional to a caller: the document says what a caller must send.
 */
function defaultsOptional(querystring: unknown): unknown {
  const object = querystring as { properties?: Record<string, { default?: unknown }>; required?: string[] };
  if (object.required === undefined || object.properties === undefined) return querystring;
  const properties = object.properties;
  return { ...object, required: object.required.filter((name) => properties[name]?.default === undefined) };
}

/**
 * The merchant API refuses a create without an Idempotency-Key (400 `idempotency_key_missing`, its own
 * check, so that the answer says what to send), and portal forms get one made for them: the header is
 * optional to validation and required in the merchant API's document.
 */
function idempotencyKeyRequired(headers: unknown): unknown {
  const object = headers as { properties?: Record<string, unknown>; required?: string[] };
  if (object.properties?.['idempotency-key'] === undefined) return headers;
  return { ...object, required: [...new Set([...(object.required ?? []), 'idempotency-key'])] };
}

/**
 * A stable id from the method and the path: `GET /w/:workspaceId/v1/invoices/:invoiceId` →
 * `getInvoicesByInvoiceId`; the portal's operations start with `portal`, the public checkout's with
 * `checkout`. Unique because method and path are.
 */
export function operationIdOf(method: string, url: string): string {
  const audience = url.startsWith('/portal/api/') ? 'portal' : /^\/w\/:workspaceId\/i\//.test(url) ? 'checkout' : '';
  const path = url
    .replace(/^\/portal\/api/, '')
    .replace(/^\/w\/:workspaceId\/(v1|i)(?=\/|$)/, '')
    .replace(/^\/w\/:workspaceId(?=\/|$)/, '/workspace');
  const words = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => (segment.startsWith(':') ? `by-${segment.slice(1)}` : segment));
  const id = [audience, method.toLowerCase(), ...words]
    .filter((word) => word !== '')
    .join('-')
    .replace(/[-_.]+(.)/g, (_, letter: string) => letter.toUpperCase());
  return id.length > 0 ? id : method.toLowerCase();
}
