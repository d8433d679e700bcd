import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient } from 'viem';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { failoverTransport, type FailoverOptions, type ProviderSkip } from '../../src/chain/rpc-failover.js';
import { refusingUrl } from '../support/fault-proxy.js';

// Real JSON-RPC servers on loopback, each answering as a script says: the transport's rules without a node.
type Call = { id: number; method: string; params: unknown[] };
type Reply = { status?: number; headers?: Record<string, string>; body?: unknown; never?: boolean };
interface ScriptedNode {
  readonly url: string;
  /** Methods received, in order. */
  readonly calls: string[];
}

type Answer = Reply | { result: unknown };

async function scriptedNode(script: (call: Call, nth: number) => Answer | Promise<Answer>): Promise<ScriptedNode> {
  const calls: string[] = [];
  const server = createServer((request, response) => {
    void read(request).then(async (text) => {
      const call = JSON.parse(text) as Call;
      calls.push(call.method);
      const reply = await script(call, calls.length);
      if ('never' in reply && reply.never) return;
      if ('result' in reply) {
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: reply.result }));
      }
      const { status = 200, headers = {}, body } = reply as Reply;
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(
        typeof body === 'string' ? body : JSON.stringify({ jsonrpc: '2.0', id: call.id, ...(body as object) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

async function read(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const healthy = (head = '0x10') =>
  scriptedNode((call) => ({
    result: call.method === 'eth_blockNumber' ? head : call.method === 'eth_chainId' ? '0x1' : '0xabc',
  }));

function clientOver(urls: string[], options: Partial<FailoverOptions> = {}) {
  const failover = failoverTransport(urls, { timeoutMs: 5_000, ...options });
  // No retries of the whole round: each test sees exactly what one round does.
  const client = createPublicClient({ transport: (config) => failover.transport({ ...config, retryCount: 0 }) });
  return {
    client,
    failover,
    request: (method: string, params: unknown[] = []) => client.request({ method, params } as never),
  };
}

describe('the failover transport', () => {
  it('answers from the next provider when the first refuses connections, and reports the first down', async () => {
    const second = await healthy();
    const { request, failover } = clientOver([await refusingUrl(), second.url]);

    expect(await request('eth_chainId')).toBe('0x1');

    const [down, up] = failover.status();
    expect(down).toMatchObject({ provider: '1', calls: 1, errors: 1, down: true });
    expect(up).toMatchObject({ provider: '2', calls: 1, errors: 0, down: false });
  });

  it('tells when a provider starts being skipped, by position, host and reason, never by its URL', async () => {
    const first = await scriptedNode(() => ({
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<h1>502</h1>',
    }));
    const second = await healthy();
    const skips: ProviderSkip[] = [];
    const { request } = clientOver([`${first.url}/v2/secret-key`, second.url], { onSkip: (skip) => skips.push(skip) });

    await request('eth_chainId');
    await request('eth_chainId');
    expect(skips).toEqual([
      { provider: 1, host: new URL(first.url).host, until: expect.any(Date) as Date, reason: 'HTTP 502' },
    ]);
    expect(JSON.stringify(skips)).not.toContain('secret-key');
  });

  it('skips a provider that answered 429 until its Retry-After has passed, then asks it again', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const first = await scriptedNode((_call, nth) =>
      nth === 1
        ? { status: 429, headers: { 'retry-after': '30', 'content-type': 'text/plain' }, body: 'Too Many Requests' }
        : { result: '0x1' },
    );
    const second = await healthy();
    const { request, failover } = clientOver([first.url, second.url], { now: () => now });

    await request('eth_chainId');
    await request('eth_chainId');
    expect([first.calls.length, second.calls.length]).toEqual([1, 2]);
    expect(failover.status()[0]).toMatchObject({
      down: true,
      downUntil: new Date(now + 30_000),
      lastError: 'HTTP 429',
    });

    now += 31_000;
    await request('eth_chainId');
    expect([first.calls.length, second.calls.length]).toEqual([2, 2]);
    expect(failover.status()[0]).toMatchObject({ down: false, errors: 1 });
  });

  it('moves on from a 502 page, a JSON-RPC rate limit in an HTTP 200 and a provider that does not answer in time', async () => {
    const badGateway = await scriptedNode(() => ({
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<html>502</html>',
    }));
    const limited = await scriptedNode(() => ({ body: { error: { code: -32005, message: 'limit exceeded' } } }));
    const silent = await scriptedNode(() => ({ never: true }));
    const last = await healthy();
    const { request, failover } = clientOver([badGateway.url, limited.url, silent.url, last.url], { timeoutMs: 300 });

    expect(await request('eth_chainId')).toBe('0x1');
    expect(failover.status().map((provider) => provider.errors)).toEqual([1, 1, 1, 0]);
  });

  it('returns a JSON-RPC error that is an answer as it is, without asking another provider or marking a failure', async () => {
    const reverting = await scriptedNode(() => ({
      body: { error: { code: 3, message: 'execution reverted: FiatTokenV2: invalid signature', data: '0x' } },
    }));
    const second = await healthy();
    const { request, failover } = clientOver([reverting.url, second.url]);

    await expect(request('eth_call', [{ to: '0x0000000000000000000000000000000000000001' }, 'latest'])).rejects.toThrow(
      /FiatTokenV2: invalid signature/,
    );
    expect(second.calls).toEqual([]);
    expect(failover.status()[0]).toMatchObject({ errors: 0, down: false });
  });

  it('sends a broadcast to every healthy provider; a refusal comes back only when none accepts it', async () => {
    const losing = await healthy();
    const second = await healthy();
    const { request } = clientOver([losing.url, second.url]);

    expect(await request('eth_sendRawTransaction', ['0x02'])).toBe('0xabc');
    expect([losing.calls, second.calls]).toEqual([['eth_sendRawTransaction'], ['eth_sendRawTransaction']]);

    const known = () => scriptedNode(() => ({ body: { error: { code: -32000, message: 'nonce too low' } } }));
    const both = clientOver([(await known()).url, (await known()).url]);
    await expect(both.request('eth_sendRawTransaction', ['0x02'])).rejects.toThrow(/nonce too low/);
  });

  it('never asks a provider for a block above its head, and asks one that is behind the others last', async () => {
    const lagging = await healthy('0x10');
    const leading = await healthy('0x20');
    const { request, failover } = clientOver([lagging.url, leading.url], { headProbeMs: 0 });

    // The first provider answers; the other's head is read in the background.
    expect(await request('eth_blockNumber')).toBe('0x10');
    await vi.waitFor(() => expect(failover.status()[1]?.head).toBe(0x20n));

    await request('eth_getLogs', [{ fromBlock: '0x11', toBlock: '0x1e' }]);
    await request('eth_getTransactionReceipt', ['0x01']);
    expect(lagging.calls).toEqual(['eth_blockNumber']);
    expect(leading.calls).toEqual(['eth_blockNumber', 'eth_getLogs', 'eth_getTransactionReceipt']);

    // A block nobody is known to have reached yet: the known heads may be stale, so every provider.
    await request('eth_getBlockByNumber', ['0x21', false]);
    expect(leading.calls.at(-1)).toBe('eth_getBlockByNumber');
    expect(lagging.calls).toEqual(['eth_blockNumber']);
  });

  it('asks for a block nobody is known to have the provider with the highest head first, even one just behind', async () => {
    const lagging = await healthy('0x10');
    const ahead = await healthy('0x11');
    const { request, failover } = clientOver([lagging.url, ahead.url], { headProbeMs: 0 });
    expect(await request('eth_blockNumber')).toBe('0x10');
    await vi.waitFor(() => expect(failover.status()[1]?.head).toBe(0x11n));

    // One block apart, the first is not behind and answers plain reads; for logs up to a block neither
    // is known to have, the one ahead is likelier to have it (the other would answer an empty list).
    await request('eth_getLogs', [{ fromBlock: '0x11', toBlock: '0x12' }]);
    await request('eth_getBlockReceipts', ['0x12']);
    expect(ahead.calls).toEqual(['eth_blockNumber', 'eth_getLogs', 'eth_getBlockReceipts']);
    await request('eth_chainId');
    expect(lagging.calls).toEqual(['eth_blockNumber', 'eth_chainId']);
  });

  it('learns a provider’s head from its latest block as from eth_blockNumber', async () => {
    const node = await scriptedNode((call) =>
      Promise.resolve({
        result: call.method === 'eth_getBlockByNumber' ? { number: '0x30', hash: `0x${'cd'.repeat(32)}` } : '0x1',
      }),
    );
    const { request, failover } = clientOver([node.url]);
    await request('eth_getBlockByNumber', ['0x2', false]);
    expect(failover.status()[0]?.head).toBeUndefined();
    await request('eth_getBlockByNumber', ['latest', false]);
    expect(failover.status()[0]?.head).toBe(0x30n);
  });

  it('keeps the head of the latest eth_blockNumber it sent when answers come back out of order', async () => {
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const node = await scriptedNode(async (call, nth) => {
      if (call.method !== 'eth_blockNumber') return { result: '0x1' };
      if (nth === 1) {
        await firstHeld;
        return { result: '0x10' };
      }
      return { result: '0x20' };
    });
    const { request, failover } = clientOver([node.url]);

    const older = request('eth_blockNumber');
    await vi.waitFor(() => expect(node.calls).toHaveLength(1));
    expect(await request('eth_blockNumber')).toBe('0x20');
    releaseFirst();
    expect(await older).toBe('0x10');
    expect(failover.status()[0]?.head).toBe(0x20n);
  });
});
