/** How the client retries: `attempts` in all (the first included), waits growing from `baseDelayMs` up to `maxDelayMs`. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 500, maxDelayMs: 5000 };

/** The caller's policy over the defaults; a value that would make the retries unbounded is refused. */
export function retryPolicy(options: Partial<RetryPolicy> = {}): RetryPolicy {
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const policy = { ...DEFAULT_RETRY, ...given };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1)
    throw new TypeError('retry.attempts must be a whole number, 1 or more.');
  if (![policy.baseDelayMs, policy.maxDelayMs].every((ms) => Number.isFinite(ms) && ms >= 0))
    throw new TypeError('retry.baseDelayMs and retry.maxDelayMs must be finite numbers of milliseconds, 0 or more.');
  return policy;
}

/** The spec's answers to retry with the same key and body: rate limiting, gateway and availability failures. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

/** Requests whose repetition cannot do a second thing: reads, puts, and creates carrying an Idempotency-Key. */
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export type Transport = (request: Request) => Promise<Response>;

/**
 * A fetch for openapi-fetch that retries network errors and 429/502/503/504 with bounded exponential
 * backoff and jitter, waiting what `Retry-After` asks instead when it says. Every attempt sends the same
 * request: the same headers (so the same Idempotency-Key) and the same body. Other statuses, 4xx
 * included, are answered at once.
 *
 * A POST or PATCH without an Idempotency-Key (cancel, renew, a webhook test…) could act twice, so it is
 * retried only where the server certainly did not act on it: a 429, or a connection that was refused.
 * A `Retry-After` longer than `maxDelayMs` ends the retries: the caller gets that response and decides.
 */
export function retryingFetch(
  transport: Transport,
  policy: RetryPolicy,
  random: () => number = Math.random,
): Transport {
  return async (request) => {
    const repeatable = REPEATABLE_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= policy.attempts;
      // A body can be read once: every attempt but the last sends a copy.
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await transport(sent);
      } catch (error) {
        if (last || request.signal.aborted || !(repeatable || connectionRefused(error))) throw error;
        await sleep(backoffMs(policy, attempt, random), request.signal);
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status) || !(repeatable || response.status === 429)) return response;
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(policy, attempt, random);
      if (wait > policy.maxDelayMs) return response;
      // Frees the connection; this answer is not the caller's.
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}

/** The wait before attempt `attempt + 1`: doubling from baseDelayMs, capped, the upper half of it at random. */
export function backoffMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return ceiling / 2 + (random() * ceiling) / 2;
}

/** A `Retry-After` value in milliseconds from `now`: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Only an HTTP date (IMF-fixdate, "Wed, 21 Oct 2026 07:28:00 GMT"): Date.parse reads far more, "1.5" too.
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** fetch's network error when nothing reached the server: the connection was refused. */
function connectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'ECONNREFUSED';
}
