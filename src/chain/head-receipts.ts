import {
  BaseError,
  MethodNotFoundRpcError,
  MethodNotSupportedRpcError,
  formatTransactionReceipt,
  type Hex,
  type RpcTransactionReceipt,
  type TransactionReceipt,
} from 'viem';
import type { Network } from './networks.js';
import type { NetworkClient } from './rpc-clients.js';

/** A block's receipts by lowercase transaction hash. */
type BlockReceipts = ReadonlyMap<string, TransactionReceipt>;

/** A block as the head read names it. */
export interface BlockId {
  readonly number: bigint;
  readonly hash: Hex;
}

/**
 * The receipts of a network's newest block, read with one `eth_getBlockReceipts` for every payment it
 * confirms: when a block comes, the payments waiting for it each ask for their receipt at once. Only the
 * newest block is kept (a new head replaces it). Kept and read by the block's hash, not its height: a
 * reorganisation that replaces the head by another block of the same height must not serve the old one's
 * receipts, and a block taken back between the head read and this read answers nothing rather than
 * another block's receipts. Undefined when the node cannot tell (a failure, for this block only) or lacks
 * the method (from then on): each receipt is then read alone.
 */
export function headReceipts(client: (network: Network) => NetworkClient) {
  const kept = new Map<string, { block: BlockId; receipts: Promise<BlockReceipts | undefined> }>();
  const withoutMethod = new Set<string>();

  function read(network: Network, hash: Hex): Promise<BlockReceipts | undefined> {
    return client(network)
      .request({ method: 'eth_getBlockReceipts', params: [hash] } as never)
      .then((rows) => {
        const list = rows as RpcTransactionReceipt[] | null;
        if (!list) return undefined;
        return new Map(list.map((row) => [row.transactionHash.toLowerCase(), formatTransactionReceipt(row)]));
      })
      .catch((error: unknown) => {
        if (isMissingMethod(error)) withoutMethod.add(network.name);
        return undefined;
      });
  }

  return (network: Network, block: BlockId): Promise<BlockReceipts | undefined> => {
    if (withoutMethod.has(network.name)) return Promise.resolve(undefined);
    const entry = kept.get(network.name);
    if (entry && entry.block.hash === block.hash) return entry.receipts;
    // An older block asked late (a caller that read the head before a block came) is read, not kept.
    if (entry && entry.block.number > block.number) return read(network, block.hash);
    const receipts = read(network, block.hash);
    kept.set(network.name, { block, receipts });
    return receipts;
  };
}

function isMissingMethod(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((cause) => cause instanceof MethodNotFoundRpcError || cause instanceof MethodNotSupportedRpcError) !==
      null
  );
}
