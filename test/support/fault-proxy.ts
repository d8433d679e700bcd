import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { keccak256, type Hex } from 'viem';
import { afterAll } from 'vitest';

/** What a provider does wrong; change it at any time with `set`. Counters make the faults repeatable. */
export interface Faults {
  /** Every n-th call is answered HTTP 429, with `retryAfter` as Retry-After when given. */
  readonly tooManyEvery?: number;
  readonly retryAfter?: string;
  /** Every n-th call is answered HTTP 502 with an HTML page, as a load balancer does. */
  readonly badGatewayEvery?: number;
  /** Added before every answer. */
  readonly latencyMs?: number;
  /** The provider's head stays this many blocks behind the node's (or at `frozenAt`): it knows nothing above. */
  readonly lagBlocks?: number;
  readonly frozenAt?: bigint;
  /** eth_sendRawTransaction is answered with the hash and never forwarded: the broadcast is lost. */
  readonly loseBroadcasts?: boolean;
}

/** A JSON-RPC provider on loopback in front of a node that fails as hosted providers do on a bad day. */
export interface FaultProxy {
  readonly url: string;
  set(faults: Faults): void;
  /** Closes the port (and every open connection): connections are refused until `up`. */
  down(): Promise<void>;
  /** Listens again on the same port; nothing when it listens already. */
  up(): Promise<void>;
  /** Calls received (a batch counts each), by method; `faulted` counts those answered with a fault. */
  calls(): Readonly<Record<string, number>>;
  total(): number;
  faulted(): number;
}

type Call = { id?: unknown; method?: string; params?: unknown[] };

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  let faults: Faults = {};
  let received = 0;
  let faulted = 0;
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(502);
      response.end(String(error));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = JSON.parse(await read(request)) as Call | Call[];
    const calls = [body].flat();
    for (const call of calls) counts.set(call.method ?? '?', (counts.get(call.method ?? '?') ?? 0) + 1);
    received += 1;
    if (faults.latencyMs) await new Promise((resolve) => setTimeout(resolve, faults.latencyMs));
    if (faults.tooManyEvery && received % faults.tooManyEvery === 0) {
      faulted += 1;
      response.writeHead(429, {
        'content-type': 'text/plain',
        ...(faults.retryAfter && { 'retry-after': faults.retryAfter }),
      });
      return void response.end('Too Many Requests');
    }
    if (faults.badGatewayEvery && received % faults.badGatewayEvery === 0) {
      faulted += 1;
      response.writeHead(502, { 'content-type': 'text/html' });
      return void response.end('<html><body>502 Bad Gateway</body></html>');
    }
    const answers = await Promise.all(calls.map(answer));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
  }

  async function answer(call: Call): Promise<unknown> {
    if (call.method === 'eth_sendRawTransaction' && faults.loseBroadcasts)
      return { jsonrpc: '2.0', id: call.id, result: keccak256(call.params?.[0] as Hex) };
    const head = await lyingHead();
    if (head === undefined) return forward(call);
    return { ...(await behind(call, head)), jsonrpc: '2.0', id: call.id };
  }

  /** The head this provider admits to, when it lags. */
  async function lyingHead(): Promise<bigint | undefined> {
    if (faults.frozenAt !== undefined) return faults.frozenAt;
    if (!faults.lagBlocks) return undefined;
    const real = BigInt((await forward({ id: 0, method: 'eth_blockNumber', params: [] })).result as string);
    return real - BigInt(faults.lagBlocks);
  }

  /** What a node at `head` answers: nothing about the blocks above it. */
  async function behind(call: Call, head: bigint): Promise<{ result?: unknown; error?: unknown }> {
    const hex = (value: bigint) => `0x${value.toString(16)}`;
    const above = (block: unknown) => typeof block === 'string' && BigInt(block) > head;
    const params = call.params ?? [];
    switch (call.method) {
      case 'eth_blockNumber':
        return { result: hex(head) };
      case 'eth_getBlockByNumber': {
        const tag = params[0];
        const block = tag === 'latest' || tag === 'pending' ? hex(head) : tag;
        return above(block) ? { result: null } : forward({ ...call, params: [block, ...params.slice(1)] });
      }
      case 'eth_getLogs': {
        const filter = { ...(params[0] as Record<string, unknown>) };
        if (filter.toBlock === undefined || filter.toBlock === 'latest' || above(filter.toBlock))
          filter.toBlock = hex(head);
        const answer = await forward({ ...call, params: [filter] });
        const logs = answer.result as { blockNumber: string }[] | undefined;
        return logs ? { result: logs.filter((log) => !above(log.blockNumber)) } : answer;
      }
      case 'eth_getBlockReceipts':
        return above(params[0]) ? { result: null } : forward(call);
      case 'eth_getTransactionReceipt':
      case 'eth_getBlockByHash': {
        const answer = await forward(call);
        const result = answer.result as { blockNumber?: string } | null | undefined;
        return result && above(result.blockNumber) ? { result: null } : answer;
      }
      default:
        return forward(call);
    }
  }

  async function forward(call: Call): Promise<{ result?: unknown; error?: unknown }> {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', ...call }),
    });
    return (await response.json()) as { result?: unknown; error?: unknown };
  }

  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;
  afterAll(() => closeAll(server, sockets));
  return {
    url: `http://127.0.0.1:${port}`,
    set: (next) => {
      faults = next;
    },
    down: () => closeAll(server, sockets),
    up: async () => {
      if (!server.listening) await listen(server, port);
    },
    calls: () => Object.fromEntries(counts),
    total: () => [...counts.values()].reduce((sum, count) => sum + count, 0),
    faulted: () => faulted,
  };
}

/** A loopback URL where nothing listens: every connection is refused. */
export async function refusingUrl(): Promise<string> {
  const server = createServer();
  await listen(server, 0);
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function listen(server: ReturnType<typeof createServer>, port: number): Promise<void> {
  return new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
}

async function closeAll(server: ReturnType<typeof createServer>, sockets: Set<Socket>): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const socket of sockets) socket.destroy();
  await closed;
}

async function read(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
