import { afterAll } from 'vitest';
import { startRpcCounter, type RpcCounter } from '../../bench/rpc-counter.js';

/** A JSON-RPC proxy on loopback in front of a node that counts calls by method (bench/rpc-counter.ts). */
export type RpcProxy = Omit<RpcCounter, 'close'>;

/** Started for the file's tests, closed after them. */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const counter = await startRpcCounter(target);
  afterAll(() => counter.close());
  return counter;
}
