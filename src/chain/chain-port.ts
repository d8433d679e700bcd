import type { Network } from './networks.js';

/** What priceSettlement throws for a settlement the token would refuse. */
export { SettlementWouldRevert } from './chain-errors.js';

/** An EIP-3009 TransferWithAuthorization as signed by a payer. Numbers are decimal strings. */
export interface TransferAuthorization {
  readonly from: `0x${string}`;
  readonly to: `0x${string}`;
  readonly value: string;
  readonly validAfter: string;
  readonly validBefore: string;
  readonly nonce: `0x${string}`;
}

/** A USDC Transfer event found in a transaction receipt. */
export interface TransferLog {
  readonly logIndex: number;
  readonly token: `0x${string}`;
  readonly from: `0x${string}`;
  readonly to: `0x${string}`;
  readonly value: bigint;
  /**
   * The nonce of the EIP-3009 authorization this transfer executed (its AuthorizationUsed log comes
   * right before it, by the same authorizer), lowercase; undefined for a plain transfer.
   */
  readonly authorizationNonce?: `0x${string}`;
}

export type ReceiptStatus =
  | { readonly kind: 'not_found' }
  | { readonly kind: 'pending' }
  | {
      readonly kind: 'mined';
      readonly success: boolean;
      readonly blockNumber: bigint;
      /** The hash of the block that holds it: a reorganisation that takes it out changes the block at that height. */
      readonly blockHash: `0x${string}`;
      readonly blockTime: Date;
      readonly confirmations: number;
      readonly transfers: readonly TransferLog[];
    };

/** A USDC transfer found by reading a range of blocks (ChainPort.transfersTo). Addresses are lowercase. */
export interface ChainTransfer {
  readonly txHash: `0x${string}`;
  readonly logIndex: number;
  readonly blockNumber: bigint;
  readonly blockTime: Date;
  readonly from: `0x${string}`;
  readonly to: `0x${string}`;
  readonly value: bigint;
}

/** A block's place in its chain: its hash commits to its parent's, so a chain of them is checked link by link. */
export interface BlockHeader {
  readonly number: bigint;
  readonly hash: `0x${string}`;
  readonly parentHash: `0x${string}`;
}

/** A settlement transaction signed by the relayer, kept before it is sent so a retry resends the same bytes. */
/** A settlement's gas and the network's EIP-1559 fees when it was priced (fees not capped yet). */
export interface SettlementPrice {
  readonly gas: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

export interface SignedSettlement {
  readonly hash: `0x${string}`;
  readonly raw: `0x${string}`;
}

/** The relayer's ether on a network and what one unit of gas costs there now (EIP-1559 fee cap). */
export interface RelayerFunds {
  readonly balanceWei: bigint;
  readonly maxFeePerGasWei: bigint;
}

/**
 * What replacing a settlement stuck below the network's base fee gives: nothing to do, a replacement
 * (same nonce and calldata, higher fees), or the fee a replacement would need, above the cap.
 */
export type SettlementReplacement =
  | { readonly kind: 'not_stuck' }
  | { readonly kind: 'replaced'; readonly settlement: SignedSettlement; readonly maxFeePerGasWei: bigint }
  | { readonly kind: 'over_cap'; readonly neededWei: bigint };

/**
 * What payments need from a chain. Implemented in src/chain/ with viem; nothing else touches a chain.
 * Every method is safe to retry: reads are reads, and sending the same signed bytes twice is one
 * transaction.
 */
export interface ChainPort {
  /** The relayer account that signs and pays the gas of settlements. */
  readonly relayer: `0x${string}`;
  /** The number of the network's latest block. */
  blockNumber(network: Network): Promise<bigint>;
  /**
   * A new block came and payments wait for it: its receipts may be read now, while those payments are
   * being woken, rather than when the first of them asks. Optional: a port without it reads on demand.
   */
  blockArrived?(network: Network): void;
  /** The canonical block at `height` (or the latest), hashes lowercase; undefined past the head. */
  blockHeader(network: Network, height: bigint | 'latest'): Promise<BlockHeader | undefined>;
  /** The relayer's transaction count on the network, counting transactions still in the mempool. */
  pendingNonce(network: Network): Promise<number>;
  /** Checks the EIP-712 signature of an authorization against the network's USDC domain (off-chain). */
  verifyAuthorization(
    network: Network,
    authorization: TransferAuthorization,
    signature: `0x${string}`,
  ): Promise<boolean>;
  /** Whether the authorization's nonce is already used or cancelled on-chain. */
  authorizationUsed(network: Network, authorization: TransferAuthorization): Promise<boolean>;
  /**
   * Simulates transferWithAuthorization from the relayer. Resolves undefined when it would succeed,
   * else a short reason (e.g. "insufficient_balance", "nonce_already_used", the revert message).
   */
  simulateSettlement(
    network: Network,
    authorization: TransferAuthorization,
    signature: `0x${string}`,
  ): Promise<string | undefined>;
  /**
   * What the relayer's transferWithAuthorization transaction takes: its gas (estimated, with headroom)
   * and the network's fees now. Node calls that do not depend on the nonce, so they are made before a
   * nonce is taken (settlements hold their account's nonce sequence one at a time). The gas estimate
   * runs the transfer: one that would revert throws SettlementWouldRevert, so pricing a settlement is
   * also its last simulation.
   */
  priceSettlement(
    network: Network,
    authorization: TransferAuthorization,
    signature: `0x${string}`,
  ): Promise<SettlementPrice>;
  /**
   * Signs (does not send) the relayer's transferWithAuthorization transaction with this nonce, at the
   * network's fee but never above `maxFeePerGasWei` (when given). Priced now unless `price` is given.
   */
  signSettlement(
    network: Network,
    authorization: TransferAuthorization,
    signature: `0x${string}`,
    nonce: number,
    maxFeePerGasWei?: bigint,
    price?: SettlementPrice,
  ): Promise<SignedSettlement>;
  /**
   * A settlement whose fee cap is below the latest block's base fee cannot be mined: signs the same
   * transaction (nonce, gas, calldata) with fees that replace it (each at least 12.5 % higher) and can
   * be mined now, never above `maxFeePerGasWei`. Does not send.
   */
  replaceSettlement(network: Network, raw: `0x${string}`, maxFeePerGasWei: bigint): Promise<SettlementReplacement>;
  /** The relayer's balance on the network and the current fee per gas, read now. */
  relayerFunds(network: Network): Promise<RelayerFunds>;
  /** Sends signed bytes; an "already known" or "nonce too low because already mined" answer is success. */
  broadcast(network: Network, raw: `0x${string}`): Promise<void>;
  /** The transaction's receipt, its confirmations and the network's USDC Transfer logs in it. */
  receipt(network: Network, hash: `0x${string}`): Promise<ReceiptStatus>;
  /**
   * The transaction that used the authorization (its AuthorizationUsed log), looked for from block
   * `fromBlock` on; undefined when no block from there holds it.
   */
  authorizationUse(
    network: Network,
    authorization: Pick<TransferAuthorization, 'from' | 'nonce'>,
    fromBlock: bigint,
  ): Promise<`0x${string}` | undefined>;
  /**
   * The network's USDC Transfer logs to any of `recipients` in blocks `fromBlock` to `toBlock` (both
   * included), in block and log order: one eth_getLogs per 100 recipients, and one block read for each
   * block that holds any whose log does not carry its block's time.
   */
  transfersTo(
    network: Network,
    recipients: readonly `0x${string}`[],
    fromBlock: bigint,
    toBlock: bigint,
  ): Promise<ChainTransfer[]>;
}

/** Where a mined receipt's transaction is: its block's number, hash and time. */
export const blockOf = ({ blockNumber, blockHash, blockTime }: Extract<ReceiptStatus, { kind: 'mined' }>) => ({
  blockNumber,
  blockHash,
  blockTime,
});
