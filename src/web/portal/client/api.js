/* global crypto, fetch, URLSearchParams */
// The portal's JSON API client. Same-origin fetches send the session cookie and, for POST/DELETE, the
// Origin header the server's CSRF check wants, without any help from us.

/** An error answer of the service: `message` is meant for people, `code` for code. */
export class ApiError extends Error {
  constructor(status, body) {
    super(typeof body?.message === 'string' ? body.message : `The service answered HTTP ${status}.`);
    this.name = 'ApiError';
    this.status = status;
    this.code = body?.code;
    this.requestId = body?.requestId;
    /** Which fields failed and why (validation errors), as `[{ path, message }]`. */
    this.details = Array.isArray(body?.details) ? body.details : [];
    /** Why a payment was refused (`insufficient_balance`, …), when it was. */
    this.reason = body?.reason;
  }
}

let sessionLost = () => {};
// How far the service's clock is ahead of this computer's, from the Date header of its last answer.
let clockOffsetMs = 0;

/**
 * The service's time now, as far as its last answer tells (to the second): what a signature's validity
 * counts from, so a wrong clock on this computer cannot make it expire before the service checks it.
 */
export const serverNow = () => Date.now() + clockOffsetMs;

/** Called when a portal API request finds no session (expired, or signed out in another tab). */
export function onSessionLost(handler) {
  sessionLost = handler;
}

async function request(method, path, body, extraHeaders = {}) {
  const headers = { accept: 'application/json', ...extraHeaders };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, { message: 'Could not reach the service. Check your connection and try again.' });
  }
  const serverDate = Date.parse(response.headers.get('date') ?? '');
  if (Number.isFinite(serverDate)) clockOffsetMs = serverDate - Date.now();
  if (response.status === 204) return undefined;
  const data = await response.json().catch(() => undefined);
  if (!response.ok) {
    const error = new ApiError(response.status, data);
    if (response.status === 401 && path.startsWith('/portal/api/')) {
      error.sessionLost = true;
      sessionLost(error);
    }
    throw error;
  }
  return data;
}

export const api = {
  get: (path) => request('GET', path),
  post: (path, body, headers) => request('POST', path, body, headers),
  put: (path, body) => request('PUT', path, body),
  patch: (path, body) => request('PATCH', path, body),
  delete: (path) => request('DELETE', path),
};

/** `/portal/api/w/<workspace id>/…` with every segment encoded, and an optional query object (empty values left out). */
export function workspacePath(workspaceId, ...rest) {
  const query = typeof rest.at(-1) === 'object' ? rest.pop() : undefined;
  const path = ['/portal/api/w', workspaceId, ...rest].map((s, i) => (i === 0 ? s : encodeURIComponent(s))).join('/');
  const params = new URLSearchParams(
    Object.entries(query ?? {}).filter(([, value]) => value !== undefined && value !== ''),
  );
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/**
 * A fresh Idempotency-Key for one thing a form asks to create: a retry after a lost answer reuses it, so
 * it cannot create a second one. getRandomValues, not randomUUID: the latter exists only in secure
 * contexts (not plain http on a LAN).
 */
export function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `portal-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * POST for a create form: one Idempotency-Key per thing the form describes (path and body). A retry after
 * a lost answer reuses it, so it cannot create a second one; changed values or a success start a new key.
 */
export function idempotentCreate() {
  let attempt;
  return async (path, body) => {
    const described = JSON.stringify([path, body]);
    if (attempt?.described !== described) attempt = { described, key: newIdempotencyKey() };
    const created = await api.post(path, body, { 'idempotency-key': attempt.key });
    attempt = undefined;
    return created;
  };
}
