import {
  BaseError,
  MethodNotFoundRpcError,
  MethodNotSupportedRpcError,
  formatTransactionReceipt,
  numberToHex,
  type RpcTransactionReceipt,
  type TransactionReceipt,
} from 'viem';
import type { Network } from './networks.js';
import type { NetworkClient } from './rpc-clients.js';

/** A block's receipts by lowercase transaction hash. */
type BlockReceipts = ReadonlyMap<string, TransactionReceipt>;

/**
 * The receipts of a network's newest block, read with one `eth_getBlockReceipts` for every payment it
 * confirms: when a block comes, the payments waiting for it each ask for their receipt at once. Only the
 * newest block is kept (a new head replaces it), so a block taken back by a reorganisation is not served
 * for long, and payment finality re-checks every recorded block anyway. Undefined when the node cannot
 * tell (a failure, for this block only) or lacks the method (from then on): each receipt is then read alone.
 */
export function headReceipts(client: (network: Network) => NetworkClient) {
  const kept = new Map<string, { height: bigint; receipts: Promise<BlockReceipts | undefined> }>();
  const withoutMethod = new Set<string>();

  function read(network: Network, height: bigint): Promise<BlockReceipts | undefined> {
    return client(network)
      .request({ method: 'eth_getBlockReceipts', params: [numberToHex(height)] } as never)
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

  return (network: Network, height: bigint): Promise<BlockReceipts | undefined> => {
    if (withoutMethod.has(network.name)) return Promise.resolve(undefined);
    const entry = kept.get(network.name);
    if (entry && entry.height === height) return entry.receipts;
    // An older height asked late (a caller that read the head before a block came) is read, not kept.
    if (entry && entry.height > height) return read(network, height);
    const receipts = read(network, height);
    kept.set(network.name, { height, receipts });
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
