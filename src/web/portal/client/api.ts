// The portal's JSON API client. Same-origin fetches send the session cookie and, for POST/DELETE, the
// Origin header the server's CSRF check wants, without any help from us.
import type { ErrorAnswer } from './api-types.js';

/** An error answer of the service: `message` is meant for people, `code` for code. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: unknown;
  readonly requestId: unknown;
  /** Which fields failed and why (validation errors), as `[{ path, message }]`. */
  readonly details: readonly { readonly path?: string; readonly message?: string }[];
  /** Why a payment was refused (`insufficient_balance`, …), when it was. */
  readonly reason: unknown;
  /** The largest invoice amount, when an amount was above it. */
  readonly maxInvoiceAmount: unknown;
  /** Set when the portal API found no session: the sign-in screen has already replaced the portal. */
  sessionLost = false;

  constructor(status: number, data?: unknown) {
    const body = data as Partial<ErrorAnswer> | null | undefined;
    super(typeof body?.message === 'string' ? body.message : `The service answered HTTP ${status}.`);
    this.name = 'ApiError';
    this.status = status;
    this.code = body?.code;
    this.requestId = body?.requestId;
    this.details = Array.isArray(body?.details) ? body.details : [];
    this.reason = body?.reason;
    this.maxInvoiceAmount = body?.maxInvoiceAmount;
  }
}

let sessionLost: (error: ApiError) => void = () => {};
// How far the service's clock is ahead of this computer's, from the Date header of its last answer.
let clockOffsetMs = 0;

/**
 * The service's time now, as far as its last answer tells (to the second): what a signature's validity
 * counts from, so a wrong clock on this computer cannot make it expire before the service checks it.
 */
export const serverNow = (): number => Date.now() + clockOffsetMs;

/** Called when a portal API request finds no session (expired, or signed out in another tab). */
export function onSessionLost(handler: (error: ApiError) => void): void {
  sessionLost = handler;
}

/**
 * One request; resolves to the answer's JSON (undefined for 204). Its type is the caller's word: the
 * route's response schema, which the server serializes by, is where it comes from (api-types.ts).
 */
async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
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
  if (response.status === 204) return undefined as T;
  const data: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const error = new ApiError(response.status, data);
    if (response.status === 401 && path.startsWith('/portal/api/')) {
      error.sessionLost = true;
      sessionLost(error);
    }
    throw error;
  }
  return data as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body?: unknown, headers?: Readonly<Record<string, string>>) =>
    request<T>('POST', path, body, headers),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, body),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  delete: <T>(path: string) => request<T>('DELETE', path),
};

/** Query parameters of a path; undefined and empty values are left out. */
export type Query = Readonly<Record<string, string | number | undefined>>;

/** `/portal/api/w/<workspace id>/…` with every segment encoded, and an optional query object (empty values left out). */
export function workspacePath(workspaceId: string, ...rest: readonly string[] | readonly [...string[], Query]): string {
  const last = rest.at(-1);
  const query = typeof last === 'object' ? last : undefined;
  const segments: string[] = [];
  for (const segment of rest) if (typeof segment === 'string') segments.push(segment);
  const path = ['/portal/api/w', workspaceId, ...segments]
    .map((s, i) => (i === 0 ? s : encodeURIComponent(s)))
    .join('/');
  const params = new URLSearchParams(
    Object.entries(query ?? {}).flatMap(([name, value]) =>
      value !== undefined && value !== '' ? [[name, String(value)]] : [],
    ),
  );
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/**
 * A fresh Idempotency-Key for one thing a form asks to create: a retry after a lost answer reuses it, so
 * it cannot create a second one. getRandomValues, not randomUUID: the latter exists only in secure
 * contexts (not plain http on a LAN).
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `portal-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * POST for a create form: one Idempotency-Key per thing the form describes (path and body). A retry after
 * a lost answer reuses it, so it cannot create a second one; changed values or a success start a new key.
 */
export function idempotentCreate<T>(): (path: string, body: unknown) => Promise<T> {
  let attempt: { described: string; key: string } | undefined;
  return async (path, body) => {
    const described = JSON.stringify([path, body]);
    if (attempt?.described !== described) attempt = { described, key: newIdempotencyKey() };
    const created = await api.post<T>(path, body, { 'idempotency-key': attempt.key });
    attempt = undefined;
    return created;
  };
}
