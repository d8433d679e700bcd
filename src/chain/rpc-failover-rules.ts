import {
  BaseError,
  HttpRequestError,
  RpcRequestError,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
} from 'viem';

/** What the failover transport knows of one provider of a network. Mutated by rpc-failover.ts only. */
export interface ProviderState {
  /** Position in the network's `rpcUrls`, from 0: the order of preference. */
  readonly index: number;
  /** Until when (ms since the epoch) the provider is skipped; 0 or past: healthy. */
  skippedUntil: number;
  /** Failures since its last answer: each one doubles the next skip. */
  failuresInRow: number;
  /** The latest block number it answered to eth_blockNumber. */
  head: bigint | undefined;
  calls: number;
  errors: number;
  lastError: string | undefined;
}

/** A provider that did not answer: it is skipped for `retryAfterMs` when it said so, else for a while. */
export interface ProviderFailure {
  readonly retryAfterMs: number | undefined;
  readonly reason: string;
}

/** A provider's head this many blocks below the highest known is behind: it is asked last. */
export const HEAD_LAG_BLOCKS = 2n;
/** The first skip after a failure; each further failure in a row doubles it, up to MAX_SKIP_MS. */
export const FIRST_SKIP_MS = 1_000;
export const MAX_SKIP_MS = 60_000;
/** A Retry-After longer than this is cut to it: a provider is never written off for long. */
export const MAX_RETRY_AFTER_MS = 300_000;

// Rate limits that providers send as JSON-RPC errors in an HTTP 200: -32005 (the standard "limit
// exceeded"), 429 (Alchemy), -32007 (QuickNode).
const RATE_LIMIT_CODES = new Set([-32005, 429, -32007]);
const INTERNAL_ERROR = -32603;

/**
 * Whether an error says the provider could not answer (refused, timed out, HTTP 5xx/429, a rate limit, a
 * body that is no JSON-RPC) rather than being the node's answer. Answers, such as "execution reverted",
 * "nonce too low" or "already known", are undefined here: another provider would answer the same.
 */
export function providerFailure(error: unknown, nowMs: number): ProviderFailure | undefined {
  if (!(error instanceof BaseError)) return { retryAfterMs: undefined, reason: String(error) };
  const rpc = error.walk((e) => e instanceof RpcRequestError);
  if (rpc instanceof RpcRequestError) {
    const serverFault = (rpc.status ?? 0) >= 500 && rpc.code === INTERNAL_ERROR;
    if (!RATE_LIMIT_CODES.has(rpc.code) && !serverFault) return undefined;
    return { retryAfterMs: retryAfterMs(rpc.headers, nowMs), reason: firstLine(rpc.details || rpc.shortMessage) };
  }
  const http = error.walk((e) => e instanceof HttpRequestError);
  if (http instanceof HttpRequestError) {
    const reason = http.status ? `HTTP ${http.status}` : firstLine(http.details || http.shortMessage);
    return { retryAfterMs: retryAfterMs(http.headers, nowMs), reason };
  }
  const lost = error.walk(
    (e) => e instanceof TimeoutError || e instanceof WebSocketRequestError || e instanceof SocketClosedError,
  );
  if (lost) return { retryAfterMs: undefined, reason: firstLine((lost as BaseError).shortMessage) };
  return undefined;
}

/**
 * Whether `error`, or the first chain error among its causes, is a node that did not answer (as
 * providerFailure judges one) rather than one that answered no. Reached past the transport's retries of
 * every provider: the network could not be read just now.
 */
export function isNodeFailure(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause)
    if (cause instanceof BaseError) return providerFailure(cause, Date.now()) !== undefined;
  return false;
}

/** `Retry-After` as seconds or an HTTP date, in ms from now, at most MAX_RETRY_AFTER_MS. */
export function retryAfterMs(headers: Headers | undefined, nowMs: number): number | undefined {
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - nowMs;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

/** How long to skip a provider after its `failuresInRow`-th failure in a row. */
export function skipMs(failuresInRow: number, failure: ProviderFailure): number {
  if (failure.retryAfterMs !== undefined) return failure.retryAfterMs;
  return Math.min(FIRST_SKIP_MS * 2 ** Math.max(failuresInRow - 1, 0), MAX_SKIP_MS);
}

/**
 * The block a read is about, when it names one by number: a provider whose head is below it cannot know
 * the answer yet (a node asked for logs above its head may answer an empty list, as if nothing happened).
 */
export function blockNeeded(method: string, params: unknown): bigint | undefined {
  if (!Array.isArray(params)) return undefined;
  const first: unknown = params[0];
  if (method === 'eth_getBlockByNumber' || method === 'eth_getBlockReceipts') return blockNumber(first);
  if (method === 'eth_getLogs' && typeof first === 'object' && first !== null)
    return blockNumber((first as { toBlock?: unknown }).toBlock);
  return undefined;
}

/** A block number in hex; not a block's 32-byte hash, which a read may name instead (EIP-1898). */
function blockNumber(value: unknown): bigint | undefined {
  return typeof value === 'string' && /^0x[0-9a-f]{1,16}$/i.test(value) ? BigInt(value) : undefined;
}

/** Whether a read's answer tells the provider's head: an eth_blockNumber, or the latest block itself. */
export function readsHead(method: string, params: unknown): boolean {
  return (
    method === 'eth_blockNumber' ||
    (method === 'eth_getBlockByNumber' && Array.isArray(params) && params[0] === 'latest')
  );
}

/** The head told by the answer of a read that `readsHead`. */
export function headOf(method: string, value: unknown): bigint | undefined {
  return blockNumber(method === 'eth_blockNumber' ? value : (value as { number?: unknown } | null)?.number);
}

/**
 * The order in which to ask the providers: healthy ones first, those whose head is within HEAD_LAG_BLOCKS
 * of the highest known before those behind, then by configured order; skipped ones last, the one free
 * soonest first (they are still asked when every other fails: a skip moves a provider back, never out).
 * A read about block `needed` leaves out every provider known to be below it, as long as one is not:
 * heads are only as fresh as the last eth_blockNumber, so when none is known to have the block, all are
 * asked, the highest known head first (a provider whose head is unknown counts as the highest): one that
 * is below the block may answer an empty list of logs as if nothing happened there (a single provider is
 * always asked).
 */
export function preference(states: readonly ProviderState[], nowMs: number, needed?: bigint): ProviderState[] {
  const leading = states.reduce<bigint | undefined>(
    (top, state) => (state.head !== undefined && (top === undefined || state.head > top) ? state.head : top),
    undefined,
  );
  const behind = (state: ProviderState) =>
    leading !== undefined && state.head !== undefined && leading - state.head > HEAD_LAG_BLOCKS ? 1 : 0;
  const skipped = (state: ProviderState) => (state.skippedUntil > nowMs ? 1 : 0);
  const below = (state: ProviderState) => needed !== undefined && state.head !== undefined && state.head < needed;
  const someoneHasIt = states.some((state) => needed !== undefined && state.head !== undefined && state.head >= needed);
  // Blocks a provider is short of the highest known head; only a read about a block nobody has yet uses it.
  const short = (state: ProviderState) =>
    needed === undefined || someoneHasIt || leading === undefined || state.head === undefined
      ? 0
      : Number(leading - state.head);
  return states
    .filter((state) => !someoneHasIt || !below(state))
    .sort(
      (a, b) =>
        skipped(a) - skipped(b) ||
        (skipped(a) ? a.skippedUntil - b.skippedUntil : 0) ||
        short(a) - short(b) ||
        behind(a) - behind(b) ||
        a.index - b.index,
    );
}

export function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}
