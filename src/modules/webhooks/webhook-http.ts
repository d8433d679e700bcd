import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import {
  ipLiteralOf,
  parseWebhookEndpoint,
  resolvedAddressesAllowed,
  systemResolve,
  type ResolvedAddress,
  type Resolver,
} from '../webhook-endpoint/index.js';
import { DELIVERY_TIMEOUT_MS, type AttemptOutcome, type DeliveryError } from './webhook.js';

export interface WebhookRequest {
  readonly url: string;
  /** Sent as given, except `host`: the URL alone decides Host and the TLS server name. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface SendOptions {
  readonly allowPrivate: boolean;
  /** For the whole attempt: DNS, connect, TLS and response headers. Default DELIVERY_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  /** Default: the system resolver (`dns.lookup`, all addresses, in the order it gives them). */
  readonly resolve?: Resolver;
  /** Aborting it (e.g. shutdown) ends the attempt as a 'timeout'. */
  readonly signal?: AbortSignal;
}

type Failure = { readonly error: DeliveryError; readonly status?: number };

/**
 * One POST attempt. Never throws: every failure is an AttemptOutcome with a safe category.
 *
 * SSRF guard (docs/webhooks.md): the URL is checked again (it may predate a rule), an IP-literal host is checked
 * as it is, a name is resolved exactly once and refused if any address is not public; the connection then
 * goes to those validated addresses only (the dispatcher's `lookup` answers from them, so there is no
 * second resolution for DNS rebinding to exploit) while Host, SNI and certificate checks use the name.
 * Redirects are never followed and the response body is never read.
 */
export async function postWebhook(request: WebhookRequest, options: SendOptions): Promise<AttemptOutcome> {
  const startedAt = performance.now();
  // One signal for the whole attempt. Built by hand rather than with AbortSignal.any so that nothing
  // stays attached to the caller's long-lived signal after the attempt.
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('webhook attempt timed out', 'TimeoutError')),
    options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
  );
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    // attempt() maps every failure it expects; anything else (a bug, an undici argument check) is still an outcome.
    const result = await attempt(request, options, controller.signal).catch((): Failure => ({
      error: 'network_error',
    }));
    const durationMs = performance.now() - startedAt;
    return 'error' in result ? { ok: false, ...result, durationMs } : { ok: true, status: result.status, durationMs };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

async function attempt(
  request: WebhookRequest,
  options: SendOptions,
  signal: AbortSignal,
): Promise<{ readonly status: number } | Failure> {
  let url: URL;
  try {
    url = parseWebhookEndpoint(request.url, options.allowPrivate);
  } catch {
    return { error: 'blocked_destination' };
  }
  const addresses = await destinationAddresses(url, options, signal);
  if ('error' in addresses) return addresses;

  const client = new Client(url.origin, {
    connect: {
      lookup: pinnedLookup(addresses.list),
      timeout: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      rejectUnauthorized: true,
      maxCachedSessions: 0,
    },
  });
  try {
    const response = await client.request({
      method: 'POST',
      path: `${url.pathname}${url.search}`,
      headers: withoutHost(request.headers),
      body: request.body,
      signal,
    });
    // Only the status matters; the body is dropped unread (the listener absorbs the abort error).
    response.body.on('error', () => {});
    response.body.destroy();
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { status };
    return { status, error: status >= 300 && status < 400 ? 'redirect' : 'http_status' };
  } catch (error) {
    return { error: signal.aborted ? 'timeout' : classify(error) };
  } finally {
    // Per-attempt dispatcher: destroy closes its socket now rather than keeping it alive for reuse.
    await client.destroy().catch(() => {});
  }
}

async function destinationAddresses(
  url: URL,
  options: SendOptions,
  signal: AbortSignal,
): Promise<{ readonly list: readonly ResolvedAddress[] } | Failure> {
  const literal = ipLiteralOf(url.hostname);
  // parseWebhookEndpoint has already refused a non-public literal; net.connect never looks a literal up.
  if (literal !== undefined) return { list: [{ address: literal, family: literal.includes(':') ? 6 : 4 }] };
  let list: readonly ResolvedAddress[];
  try {
    list = await untilAborted((options.resolve ?? systemResolve)(url.hostname), signal);
  } catch {
    return { error: signal.aborted ? 'timeout' : 'dns_failure' };
  }
  if (list.length === 0) return { error: 'dns_failure' };
  return resolvedAddressesAllowed(list, options.allowPrivate) ? { list } : { error: 'blocked_destination' };
}

/** A `lookup` for net/tls.connect that answers with the addresses validated for this attempt, never DNS. */
function pinnedLookup(list: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    const first = list[0];
    // Node ≥ 20 asks for `all` when happy-eyeballs (autoSelectFamily) is on, a single address otherwise.
    if (lookupOptions.all)
      callback(
        null,
        list.map(({ address, family }) => ({ address, family })),
      );
    else if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new Error('no validated address'), { code: 'ENOTFOUND' }), '');
  };
}

function withoutHost(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'host'));
}

/** Resolves or rejects with the promise, or rejects as soon as the signal aborts (lookups cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_ABORTED',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const DNS_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EAI_NODATA',
  'ENODATA',
  'ESERVFAIL',
  'ENONAME',
]);
// Certificate verification failures carry OpenSSL's X509 reason as their code.
const CERT_CODE =
  /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY|DECRYPT)|HOSTNAME_MISMATCH|INVALID_CA|PATH_LENGTH|INVALID_PURPOSE/;

/** Maps a connection error to a category; the error itself (message, stack) is never kept. */
function classify(error: unknown): DeliveryError {
  const chain = errorChain(error);
  const codes = chain.map((e) => e.code).filter((c): c is string => typeof c === 'string');
  if (
    chain.some((e) => e.name === 'TimeoutError' || e.name === 'AbortError') ||
    codes.some((c) => TIMEOUT_CODES.has(c))
  )
    return 'timeout';
  if (codes.some((c) => c.startsWith('ERR_TLS_') || c.startsWith('ERR_SSL_') || CERT_CODE.test(c))) return 'tls_error';
  if (chain.some((e) => e.library === 'SSL routines')) return 'tls_error';
  if (codes.includes('ECONNREFUSED')) return 'connection_refused';
  if (codes.some((c) => RESET_CODES.has(c))) return 'connection_reset';
  if (codes.some((c) => DNS_CODES.has(c))) return 'dns_failure';
  return 'network_error';
}

type ErrorLike = { readonly name?: unknown; readonly code?: unknown; readonly library?: unknown };

/** The error, its `cause`s and an AggregateError's members (happy-eyeballs reports one per address). */
function errorChain(error: unknown, depth = 0): ErrorLike[] {
  if (typeof error !== 'object' || error === null || depth > 5) return [];
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  const nested = Array.isArray(errors) ? errors.flatMap((e: unknown) => errorChain(e, depth + 1)) : [];
  return [error as ErrorLike, ...errorChain(cause, depth + 1), ...nested];
}
