import { HttpRequestError, InternalRpcError, RpcRequestError, TimeoutError } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  blockNeeded,
  headOf,
  isNodeFailure,
  MAX_RETRY_AFTER_MS,
  preference,
  providerFailure,
  readsHead,
  retryAfterMs,
  skipMs,
  type ProviderState,
} from '../../src/chain/rpc-failover-rules.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const url = 'http://127.0.0.1:1';
const rpcError = (code: number, status?: number) =>
  new InternalRpcError(
    new RpcRequestError({ body: {}, error: { code, message: `error ${code}` }, url, ...(status && { status }) }),
  );
const state = (index: number, change: Partial<ProviderState> = {}): ProviderState => ({
  index,
  skippedUntil: 0,
  failuresInRow: 0,
  head: undefined,
  calls: 0,
  errors: 0,
  lastError: undefined,
  ...change,
});

describe('a request that failed because no node answered', () => {
  it('is told from a node that answered no, through the errors that wrap it', () => {
    const wrapped = (cause: unknown) => new Error('simulating a settlement on base failed', { cause });
    expect(isNodeFailure(wrapped(new HttpRequestError({ url, status: 502 })))).toBe(true);
    expect(isNodeFailure(new TimeoutError({ body: {}, url }))).toBe(true);
    expect(isNodeFailure(wrapped(rpcError(3)))).toBe(false); // a revert
    expect(isNodeFailure(wrapped(new Error('a bug')))).toBe(false);
    expect(isNodeFailure('not an error')).toBe(false);
  });
});

describe('which errors are provider failures', () => {
  it.each([
    ['a refused connection', new HttpRequestError({ url, details: 'fetch failed' })],
    ['an HTTP 502', new HttpRequestError({ url, status: 502 })],
    ['an HTTP 401 (a bad API key)', new HttpRequestError({ url, status: 401 })],
    ['a timeout', new TimeoutError({ body: {}, url })],
    ['a rate limit in an HTTP 200', rpcError(-32005)],
    ["Alchemy's rate limit code", rpcError(429)],
    ['an internal error with a 5xx status', rpcError(-32603, 503)],
  ])('%s is a failure', (_name, error) => {
    expect(providerFailure(error, NOW)).toBeDefined();
  });

  it.each([
    ['execution reverted', rpcError(3)],
    ['nonce too low', rpcError(-32000)],
    ['an internal error in an HTTP 200 (what some nodes answer for a revert)', rpcError(-32603)],
  ])('%s is an answer', (_name, error) => {
    expect(providerFailure(error, NOW)).toBeUndefined();
  });
});

describe('how long a provider is skipped', () => {
  it('reads Retry-After as seconds or as a date, capped', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '7' }), NOW)).toBe(7_000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(NOW + 20_000).toUTCString() }), NOW)).toBe(20_000);
    expect(retryAfterMs(new Headers({ 'retry-after': '86400' }), NOW)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), NOW)).toBeUndefined();
    expect(retryAfterMs(new Headers(), NOW)).toBeUndefined();
  });

  it('doubles with each failure in a row unless the provider said how long', () => {
    const silent = { retryAfterMs: undefined, reason: 'HTTP 502' };
    expect([1, 2, 3, 10].map((failures) => skipMs(failures, silent))).toEqual([1_000, 2_000, 4_000, 60_000]);
    expect(skipMs(5, { retryAfterMs: 3_000, reason: 'HTTP 429' })).toBe(3_000);
  });
});

describe('the order providers are asked in', () => {
  it('puts skipped providers last, the one free soonest first, and those behind after those ahead', () => {
    const states = [
      state(0, { skippedUntil: NOW + 9_000 }),
      state(1, { head: 100n }),
      state(2, { head: 90n }),
      state(3, { skippedUntil: NOW + 1_000 }),
      state(4, { head: 99n }),
    ];
    expect(preference(states, NOW).map((s) => s.index)).toEqual([1, 4, 2, 3, 0]);
  });

  it('leaves out providers known to be below the block a read names while another has it', () => {
    const states = [state(0, { head: 90n }), state(1, { head: 100n }), state(2)];
    expect(preference(states, NOW, 95n).map((s) => s.index)).toEqual([1, 2]);
    // None known to have it (heads are as old as the last eth_blockNumber): every provider, the highest
    // head first, an unknown one as high as the highest.
    expect(preference(states, NOW, 101n).map((s) => s.index)).toEqual([1, 2, 0]);
    const close = [state(0, { head: 99n }), state(1, { head: 100n })];
    expect(preference(close, NOW).map((s) => s.index)).toEqual([0, 1]);
    expect(preference(close, NOW, 101n).map((s) => s.index)).toEqual([1, 0]);
    expect(blockNeeded('eth_getBlockReceipts', ['0x5f'])).toBe(95n);
    expect(blockNeeded('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x5f' }])).toBe(95n);
    expect(blockNeeded('eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }])).toBeUndefined();
    expect(blockNeeded('eth_getBlockByNumber', ['0x5f', false])).toBe(95n);
    expect(blockNeeded('eth_getTransactionReceipt', ['0x01'])).toBeUndefined();
    // A block named by its hash says nothing of its height.
    expect(blockNeeded('eth_getBlockReceipts', [`0x${'ab'.repeat(32)}`])).toBeUndefined();
  });

  it('reads a provider’s head from its eth_blockNumber and from its latest block, from nothing else', () => {
    expect(readsHead('eth_blockNumber', [])).toBe(true);
    expect(headOf('eth_blockNumber', '0x5f')).toBe(95n);
    expect(readsHead('eth_getBlockByNumber', ['latest', false])).toBe(true);
    expect(headOf('eth_getBlockByNumber', { number: '0x5f', hash: `0x${'ab'.repeat(32)}` })).toBe(95n);
    expect(readsHead('eth_getBlockByNumber', ['0x5f', false])).toBe(false);
    expect(readsHead('eth_getBlockReceipts', ['latest'])).toBe(false);
    expect(headOf('eth_getBlockByNumber', null)).toBeUndefined();
  });
});
