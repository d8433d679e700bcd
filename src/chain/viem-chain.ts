import {
  BlockNotFoundError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  encodeFunctionData,
  getAddress,
  hashTypedData,
  isAddressEqual,
  keccak256,
  parseEventLogs,
  parseTransaction,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type {
  ChainPort,
  ChainTransfer,
  ReceiptStatus,
  SettlementReplacement,
  SettlementPrice,
  SignedSettlement,
  TransferAuthorization,
  TransferLog,
} from './chain-port.js';
import {
  BroadcastError,
  SettlementWouldRevert,
  isAlreadyKnown,
  isNonceTaken,
  nodeMessage,
  revertReason,
} from './chain-errors.js';
import { blockMs, type Network } from './networks.js';
import { headReceipts } from './head-receipts.js';
import { recoverSigner } from './signer-recovery.js';
import { createRpcClients, type RpcClients } from './rpc-clients.js';
import {
  authorizationMessage,
  isLowS,
  settlementArgs,
  transferWithAuthorizationTypes,
  usdcAbi,
  usdcDomain,
  vrsSignature,
} from './usdc-eip3009.js';

export interface ViemChainOptions {
  /** Pays the gas of every settlement. Needs ETH on each network; never holds USDC. */
  readonly relayerPrivateKey: `0x${string}`;
  /** The networks' clients, shared with /metrics and /readyz; by default clients of its own. */
  readonly rpc?: RpcClients;
}

// Headroom over the estimate: the gas a transfer needs depends on state (a first credit to an address
// costs more) that may change between estimating and mining.
const GAS_HEADROOM_PERCENT = 125n;
/** Block times kept by hash: more than the blocks that payments in flight sit in. */
const BLOCK_TIMES_KEPT = 1_024;
/** Recipients in one eth_getLogs topic filter: nodes limit a filter's size. */
const RECIPIENTS_PER_CALL = 100;

/** The ChainPort on real EVM nodes, through viem. One relayer account settles on every network. */
export function createViemChain(options: ViemChainOptions): ChainPort {
  const relayer = privateKeyToAccount(options.relayerPrivateKey);
  const { client } = options.rpc ?? createRpcClients();

  // What many payments at once would each ask the node: fees (shared for half a block: the 20 % headroom
  // of viem's estimate covers a base fee that moves meanwhile), the latest block that says whether a
  // settlement is stuck (a quarter block: replaced a block later at worst), the head block's number and
  // hash (shared by the callers of one moment only, so a new block's confirmation counts at once), and the
  // time of a block by its hash, which never changes.
  const fees = sharedFor(
    (network) => blockMs(network) / 2,
    (network) => client(network).estimateFeesPerGas({ type: 'eip1559' }),
  );
  const latestBlock = sharedFor(
    (network) => blockMs(network) / 4,
    (network) => client(network).getBlock({ blockTag: 'latest' }),
  );
  const head = sharedFor(
    () => 0,
    (network) =>
      client(network)
        .getBlock({ blockTag: 'latest' })
        .then((block) => {
          // The head's payments need its time next: no second read of the same block.
          keepBlockTime(network, block.hash, Promise.resolve(blockDate(block.timestamp)));
          return { number: block.number, hash: block.hash };
        }),
  );
  const newestReceipts = headReceipts(client);
  const blockTimes = new Map<string, Promise<Date>>();
  function blockTime(network: Network, blockHash: Hex): Promise<Date> {
    const known = blockTimes.get(`${network.name}:${blockHash}`);
    if (known) return known;
    const time = client(network)
      .getBlock({ blockHash })
      .then((block) => blockDate(block.timestamp));
    keepBlockTime(network, blockHash, time);
    return time;
  }
  function keepBlockTime(network: Network, blockHash: Hex, time: Promise<Date>): void {
    const key = `${network.name}:${blockHash}`;
    blockTimes.set(key, time);
    time.catch(() => blockTimes.delete(key));
    if (blockTimes.size > BLOCK_TIMES_KEPT) blockTimes.delete(blockTimes.keys().next().value!);
  }

  /** Whether the node knows the transaction at all (pending or mined). Throws when it cannot tell. */
  async function knows(network: Network, hash: Hex): Promise<boolean> {
    try {
      await client(network).getTransaction({ hash });
      return true;
    } catch (error) {
      if (error instanceof TransactionNotFoundError) return false;
      throw error;
    }
  }

  /** The relayer's EIP-1559 transaction to the network's USDC, signed. */
  async function priceSettlement(
    network: Network,
    authorization: TransferAuthorization,
    signature: Hex,
  ): Promise<SettlementPrice> {
    const data = calldata(authorization, signature);
    const [gas, fee] = await Promise.all([
      client(network).estimateGas({ account: relayer.address, to: network.usdc, data }),
      fees(network),
    ]).catch((error: unknown) => {
      const reason = revertReason(error);
      if (reason !== undefined) throw new SettlementWouldRevert(reason, network.name);
      throw new Error(`cannot sign a settlement on ${network.name}: ${nodeMessage(error)}`, { cause: error });
    });
    return {
      gas: (gas * GAS_HEADROOM_PERCENT) / 100n,
      maxFeePerGas: fee.maxFeePerGas,
      maxPriorityFeePerGas: fee.maxPriorityFeePerGas,
    };
  }

  async function signed(
    network: Network,
    fields: { data: Hex; nonce: number; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  ): Promise<SignedSettlement> {
    const raw = await relayer.signTransaction({
      type: 'eip1559',
      chainId: network.chainId,
      to: network.usdc,
      value: 0n,
      ...fields,
    });
    return { hash: keccak256(raw), raw };
  }

  return {
    relayer: relayer.address,

    blockNumber(network) {
      return client(network).getBlockNumber();
    },

    blockArrived(network) {
      void head(network).then(
        (block) => newestReceipts(network, block),
        () => undefined,
      );
    },

    pendingNonce(network) {
      return client(network).getTransactionCount({ address: relayer.address, blockTag: 'pending' });
    },

    // Never throws: a malformed authorization or signature is simply not a valid one.
    async verifyAuthorization(network, authorization, signature) {
      try {
        const vrs = vrsSignature(signature);
        // Off-chain only EOA signatures can be checked; FiatToken refuses high-s copies, so refuse them too.
        if (!vrs || !isLowS(vrs)) return false;
        const digest = hashTypedData({
          domain: usdcDomain(network),
          types: transferWithAuthorizationTypes,
          primaryType: 'TransferWithAuthorization',
          message: authorizationMessage(authorization),
        });
        const signer = recoverSigner(digest, vrs);
        return signer !== undefined && isAddressEqual(signer, authorization.from);
      } catch {
        return false;
      }
    },

    async authorizationUsed(network, authorization) {
      return client(network).readContract({
        address: network.usdc,
        abi: usdcAbi,
        functionName: 'authorizationState',
        args: [authorization.from, authorization.nonce],
      });
    },

    // Reverts become reasons; an unreachable node throws, since that says nothing about the payment.
    async simulateSettlement(network, authorization, signature) {
      try {
        const args = settlementArgs(authorization, signature);
        const call = {
          address: network.usdc,
          abi: usdcAbi,
          functionName: 'transferWithAuthorization',
          account: relayer.address,
        } as const;
        // Two calls for viem's types: each overload's arguments must be known statically.
        await (args.length === 9
          ? client(network).simulateContract({ ...call, args })
          : client(network).simulateContract({ ...call, args }));
        return undefined;
      } catch (error) {
        const reason = revertReason(error);
        if (reason === undefined)
          throw new Error(`simulating a settlement on ${network.name} failed: ${nodeMessage(error)}`, { cause: error });
        return reason;
      }
    },

    priceSettlement,

    async signSettlement(network, authorization, signature, nonce, maxFeePerGasWei, price): Promise<SignedSettlement> {
      const {
        gas,
        maxFeePerGas: fee,
        maxPriorityFeePerGas,
      } = price ?? (await priceSettlement(network, authorization, signature));
      const maxFeePerGas = maxFeePerGasWei === undefined ? fee : min(fee, maxFeePerGasWei);
      return signed(network, {
        data: calldata(authorization, signature),
        nonce,
        gas,
        maxFeePerGas,
        maxPriorityFeePerGas: min(maxPriorityFeePerGas, maxFeePerGas),
      });
    },

    async replaceSettlement(network, raw, maxFeePerGasWei): Promise<SettlementReplacement> {
      const old = parseTransaction(raw);
      const baseFee = (await latestBlock(network)).baseFeePerGas ?? 0n;
      const oldMax = old.maxFeePerGas ?? 0n;
      if (oldMax >= baseFee) return { kind: 'not_stuck' };
      const fees = await client(network).estimateFeesPerGas({ type: 'eip1559' });
      // Nodes take a replacement only when both fees rise by 10 % (geth) or 12.5 % (others).
      const priority = max(replacing(old.maxPriorityFeePerGas ?? 0n), fees.maxPriorityFeePerGas);
      const needed = max(replacing(oldMax), baseFee + priority);
      if (needed > maxFeePerGasWei) return { kind: 'over_cap', neededWei: needed };
      const maxFeePerGas = min(max(needed, fees.maxFeePerGas), maxFeePerGasWei);
      const settlement = await signed(network, {
        data: old.data!,
        nonce: old.nonce!,
        gas: old.gas!,
        maxFeePerGas,
        maxPriorityFeePerGas: min(priority, maxFeePerGas),
      });
      return { kind: 'replaced', settlement, maxFeePerGasWei: maxFeePerGas };
    },

    async relayerFunds(network) {
      const [balanceWei, fee] = await Promise.all([
        client(network).getBalance({ address: relayer.address }),
        fees(network),
      ]);
      return { balanceWei, maxFeePerGasWei: fee.maxFeePerGas };
    },

    async broadcast(network, raw) {
      const hash = keccak256(raw);
      try {
        await client(network).sendRawTransaction({ serializedTransaction: raw });
      } catch (error) {
        if (isAlreadyKnown(error)) return;
        if (isNonceTaken(error)) {
          // "Nonce too low" for these very bytes means they were mined already: done.
          const mined = await knows(network, hash).catch((cause: unknown) => {
            throw new BroadcastError(
              'rejected',
              `broadcasting ${hash} on ${network.name} failed: ${nodeMessage(cause)}`,
              { cause },
            );
          });
          if (mined) return;
          throw new BroadcastError(
            'nonce_taken',
            `settlement ${hash} on ${network.name} can never be mined: ${nodeMessage(error)}`,
            { cause: error },
          );
        }
        throw new BroadcastError('rejected', `broadcasting ${hash} on ${network.name} failed: ${nodeMessage(error)}`, {
          cause: error,
        });
      }
    },

    async blockHeader(network, height) {
      let block;
      try {
        block = await client(network).getBlock(height === 'latest' ? { blockTag: 'latest' } : { blockNumber: height });
      } catch (error) {
        if (error instanceof BlockNotFoundError) return undefined;
        throw error;
      }
      const lower = (hex: Hex) => hex.toLowerCase() as `0x${string}`;
      return { number: block.number, hash: lower(block.hash), parentHash: lower(block.parentHash) };
    },

    async receipt(network, hash): Promise<ReceiptStatus> {
      // The payments a new block confirms find their receipts in it, read once for all of them.
      const newest = await head(network);
      const latest = newest.number;
      let receipt = (await newestReceipts(network, newest))?.get(hash.toLowerCase());
      try {
        receipt ??= await client(network).getTransactionReceipt({ hash });
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
        return (await knows(network, hash)) ? { kind: 'pending' } : { kind: 'not_found' };
      }
      const time = await blockTime(network, receipt.blockHash);
      const ownLogs = receipt.logs.filter((log) => isAddressEqual(log.address, network.usdc));
      const uses = parseEventLogs({ abi: usdcAbi, eventName: 'AuthorizationUsed', logs: ownLogs });
      const transfers = parseEventLogs({ abi: usdcAbi, eventName: 'Transfer', logs: ownLogs }).map(
        (log): TransferLog => {
          // The token marks an authorization used right before the transfer it executes.
          const use = uses.find(
            (candidate) =>
              candidate.logIndex === log.logIndex - 1 && isAddressEqual(candidate.args.authorizer, log.args.from),
          );
          return {
            logIndex: log.logIndex,
            token: getAddress(log.address),
            from: log.args.from,
            to: log.args.to,
            value: log.args.value,
            ...(use && { authorizationNonce: use.args.nonce.toLowerCase() as `0x${string}` }),
          };
        },
      );
      return {
        kind: 'mined',
        success: receipt.status === 'success',
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash.toLowerCase() as `0x${string}`,
        blockTime: time,
        // A node behind a load balancer may report a latest block older than the receipt's: count 1 then.
        confirmations: latest >= receipt.blockNumber ? Number(latest - receipt.blockNumber) + 1 : 1,
        transfers,
      };
    },

    async transfersTo(network, recipients, fromBlock, toBlock): Promise<ChainTransfer[]> {
      const c = client(network);
      const chunks: `0x${string}`[][] = [];
      for (let at = 0; at < recipients.length; at += RECIPIENTS_PER_CALL)
        chunks.push(recipients.slice(at, at + RECIPIENTS_PER_CALL));
      const logs = (
        await Promise.all(
          chunks.map((to) =>
            c.getContractEvents({
              address: network.usdc,
              abi: usdcAbi,
              eventName: 'Transfer',
              args: { to },
              fromBlock,
              toBlock,
            }),
          ),
        )
      )
        .flat()
        .filter((log) => !log.removed)
        .sort((a, b) =>
          a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
        );
      // Nodes that put the block's time on each log spare the block reads.
      const times = new Map<bigint, Date>();
      for (const log of logs)
        if (log.blockTimestamp !== undefined && log.blockTimestamp !== null)
          times.set(log.blockNumber, new Date(Number(log.blockTimestamp) * 1000));
      const unknown = [...new Set(logs.map((log) => log.blockNumber))].filter((block) => !times.has(block));
      await Promise.all(
        unknown.map(async (blockNumber) => {
          const block = await c.getBlock({ blockNumber });
          times.set(blockNumber, new Date(Number(block.timestamp) * 1000));
        }),
      );
      return logs.map((log) => ({
        txHash: log.transactionHash.toLowerCase() as `0x${string}`,
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        blockTime: times.get(log.blockNumber)!,
        from: log.args.from!.toLowerCase() as `0x${string}`,
        to: log.args.to!.toLowerCase() as `0x${string}`,
        value: log.args.value!,
      }));
    },

    async authorizationUse(network, authorization, fromBlock) {
      const logs = await client(network).getContractEvents({
        address: network.usdc,
        abi: usdcAbi,
        eventName: 'AuthorizationUsed',
        args: { authorizer: authorization.from, nonce: authorization.nonce },
        fromBlock,
        toBlock: 'latest',
      });
      return logs.find((log) => !log.removed)?.transactionHash ?? undefined;
    },
  };
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
/** The least fee that replaces a pending transaction's: 12.5 % more, rounded up. */
const replacing = (fee: bigint): bigint => (fee * 1125n + 999n) / 1000n;

function calldata(authorization: TransferAuthorization, signature: Hex): Hex {
  return encodeFunctionData({
    abi: usdcAbi,
    functionName: 'transferWithAuthorization',
    args: settlementArgs(authorization, signature),
  });
}

export { BroadcastError };

/**
 * One read per network shared by every caller that asks while it is under way, and for `ttlMs` after it
 * answered; a failed read is not kept.
 */
function sharedFor<T>(ttlMs: (network: Network) => number, read: (network: Network) => Promise<T>) {
  const reads = new Map<string, { answeredAt?: number; value: Promise<T> }>();
  return (network: Network): Promise<T> => {
    const kept = reads.get(network.name);
    if (kept && (kept.answeredAt === undefined || Date.now() - kept.answeredAt < ttlMs(network))) return kept.value;
    const entry: { answeredAt?: number; value: Promise<T> } = { value: read(network) };
    reads.set(network.name, entry);
    entry.value.then(
      () => {
        entry.answeredAt = Date.now();
      },
      () => {
        if (reads.get(network.name) === entry) reads.delete(network.name);
      },
    );
    return entry.value;
  };
}

function blockDate(timestamp: bigint): Date {
  return new Date(Number(timestamp) * 1000);
}
