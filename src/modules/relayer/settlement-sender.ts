import { isAddressEqual, keccak256, recoverTransactionAddress, type TransactionSerialized } from 'viem';
import type { ChainPort, SettlementPrice, SignedSettlement, TransferAuthorization } from '../../chain/chain-port.js';
import type { Network } from '../../chain/networks.js';
import { pipelinedTransaction, type Db, type Executor } from '../../db/database.js';
import { allOrFirstFailure } from '../../db/pipelined-transactions.js';
import { Batcher } from '../../shared/batcher.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { gweiToWei } from './relayer-funds.js';
import { nextRelayerNonce } from './relayer-nonce.js';
import { lockRelayerNonces, saveRelayerNonces } from './relayer-nonce.repo.js';
import type { RelayerLogger, RelayerWatch } from './relayer-watch.js';

export interface SettlementSenderDeps {
  readonly db: Db;
  /** One port a relayer account, each signing as its `relayer`; the first is the default account. */
  readonly signers: readonly ChainPort[];
  readonly clock: Clock;
  readonly watch: RelayerWatch;
  /** MAX_FEE_PER_GAS_GWEI; a network's own maxFeePerGasGwei comes first. */
  readonly maxFeePerGasGwei: number;
}

/** How the caller keeps a signed settlement: in its own row, in the transaction that signs it. */
export interface SettlementKeeper<T> {
  /** Undefined while the settlement is still wanted as the caller last saw it; otherwise what to answer instead. */
  superseded(trx: Executor): Promise<T | undefined>;
  /** Stores the signed bytes before they are sent. */
  keep(trx: Executor, settlement: SignedSettlement): Promise<T>;
}

/** What became of a settlement waiting in the mempool. */
export type StuckOutcome<T> =
  { readonly kind: 'not_stuck' | 'over_cap' } | { readonly kind: 'replaced'; readonly value: T };

/**
 * Signs, sends and replaces the relayer's settlements: each account's nonce sequence, the fee cap, and
 * the settlements stuck above that cap (reported, never replaced for ever). With several accounts
 * (RELAYER_PRIVATE_KEYS), a settlement takes the first funded account whose sequence is free.
 */
export class SettlementSender {
  /** Settlements a replacement of which would pass the fee cap, by hash: their network. */
  private readonly overCap = new Map<string, string>();
  private logger: RelayerLogger | undefined;
  /**
   * Per network (and accounts to choose from), as many signing transactions at once as there are
   * accounts. Settlements that come while one runs wait here, not on the nonce rows' locks with a pooled
   * connection each, and are signed together in the next: one lock of the sequence, one commit.
   */
  private readonly signing = new Map<string, Batcher<SigningRequest, SigningAnswer>>();

  constructor(private readonly deps: SettlementSenderDeps) {}

  /** Where over-cap settlements are reported (the service's log). */
  useLogger(logger: RelayerLogger): void {
    this.logger = logger;
  }

  /**
   * Signs the settlement and keeps its bytes in one transaction, under the lock of a relayer account's
   * nonce sequence on this network (shared by every process), with the settlements that came while the
   * last such transaction ran (signTogether), then sends them once that committed. If
   * sending fails or the process dies, a retry sends the kept bytes instead of signing a second
   * transaction. The lock is a row's, held only by the transaction: safe through a transaction pooler.
   */
  async signAndSend<T>(
    network: Network,
    authorization: TransferAuthorization,
    signature: `0x${string}`,
    keeper: SettlementKeeper<T>,
  ): Promise<T> {
    const { signers } = this.deps;
    const funded = signers.length > 1 ? await this.deps.watch.payers(network) : signers;
    const candidates = (funded.length > 0 ? funded : signers).map((signer) => signer.relayer);
    // The node calls that need no nonce are made before one is taken: whatever is done holding an
    // account's sequence, every other settlement of that account waits for.
    const price = await signers[0]!.priceSettlement(network, authorization, signature);
    const answer = await this.signingOf(network, candidates).submit({ authorization, signature, keeper, price });
    if ('failed' in answer) throw answer.failed;
    const signed = answer.signed as Signed<T>;
    this.deps.watch.noteSettlement(network);
    if (signed.raw) await signers[0]!.broadcast(network, signed.raw);
    return signed.value;
  }

  /**
   * Sends kept bytes again. A node that refuses them (some refuse a fee cap below the base fee outright)
   * gets a replacement when they are stuck (replaceIfStuck), answered as kept; otherwise the refusal is
   * thrown, BroadcastError `nonce_taken` when another transaction took their nonce.
   */
  async resend<T>(network: Network, raw: `0x${string}`, keeper: SettlementKeeper<T>): Promise<T | undefined> {
    try {
      await this.deps.signers[0]!.broadcast(network, raw);
      return undefined;
    } catch (error) {
      if (isNonceTaken(error)) throw error;
      const stuck = await this.replaceIfStuck(network, raw, keeper);
      if (stuck.kind === 'not_stuck') throw error;
      return stuck.kind === 'replaced' ? stuck.value : undefined;
    }
  }

  /**
   * A kept settlement not mined yet: when its fee cap is below the network's base fee it cannot be mined,
   * so it is replaced (same nonce, same authorization, higher fees, kept before it is sent) up to the
   * fee cap. Past the cap it is reported once and left as it is: it is mined if fees fall.
   */
  async replaceIfStuck<T>(network: Network, raw: `0x${string}`, keeper: SettlementKeeper<T>): Promise<StuckOutcome<T>> {
    const hash = keccak256(raw);
    const cap = this.feeCap(network);
    const signer = await this.signerOf(raw);
    if (!signer) {
      this.logger?.warn(
        { network: network.name, transactionHash: hash },
        `settlement ${hash} on ${network.name} was signed by a relayer account no longer configured (RELAYER_PRIVATE_KEYS): it cannot be replaced, and is mined if its fee allows`,
      );
      return { kind: 'not_stuck' };
    }
    const replacement = await signer.replaceSettlement(network, raw, cap);
    if (replacement.kind === 'not_stuck') {
      this.overCap.delete(hash);
      return replacement;
    }
    if (replacement.kind === 'over_cap') {
      if (!this.overCap.has(hash))
        this.logger?.warn(
          {
            network: network.name,
            transactionHash: hash,
            neededWei: String(replacement.neededWei),
            capWei: String(cap),
          },
          `settlement ${hash} on ${network.name} is stuck below the base fee, and replacing it needs ${replacement.neededWei} wei per gas, above the cap of ${cap} (maxFeePerGasGwei): it waits for fees to fall`,
        );
      this.overCap.set(hash, network.name);
      return replacement;
    }
    const value = await this.deps.db.transaction().execute(async (trx) => {
      const instead = await keeper.superseded(trx);
      return instead === undefined ? { kept: await keeper.keep(trx, replacement.settlement) } : undefined;
    });
    if (!value) return { kind: 'not_stuck' };
    this.overCap.delete(hash);
    this.deps.watch.noteSettlement(network);
    await signer.broadcast(network, replacement.settlement.raw);
    return { kind: 'replaced', value: value.kept };
  }

  /**
   * A kept settlement is not mined yet: replaced when stuck (replaceIfStuck). Answers why it is still
   * waited for, for the job's log.
   */
  async unmined<T>(network: Network, raw: `0x${string}`, keeper: SettlementKeeper<T>): Promise<string> {
    const stuck = await this.replaceIfStuck(network, raw, keeper);
    if (stuck.kind === 'over_cap') return 'settlement stuck: a replacement would pass the fee cap';
    return stuck.kind === 'replaced' ? 'settlement replaced with a higher fee' : 'settlement not mined yet';
  }

  /** The settlement was mined (or given up): it is no longer reported. */
  settled(hash: string): void {
    this.overCap.delete(hash);
  }

  /** Settlements stuck above the fee cap now, by network name. */
  overCapByNetwork(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const network of this.overCap.values()) counts.set(network, (counts.get(network) ?? 0) + 1);
    return counts;
  }

  /** The signing batches of the settlements on `network` that may take one of `candidates`. */
  private signingOf(network: Network, candidates: readonly string[]): Batcher<SigningRequest, SigningAnswer> {
    const key = `${network.chainId} ${candidates.join(',')}`;
    let batches = this.signing.get(key);
    if (!batches) {
      batches = new Batcher((requests) => this.signBatch(network, candidates, requests), {
        concurrency: this.deps.signers.length,
        maxBatch: MOST_SIGNED_TOGETHER,
      });
      this.signing.set(key, batches);
    }
    return batches;
  }

  /**
   * Signs a batch in one transaction; should that fail, each alone, one after another, so that each
   * fails or succeeds on its own as if it had never been batched.
   */
  private async signBatch(
    network: Network,
    candidates: readonly string[],
    requests: SigningRequest[],
  ): Promise<SigningAnswer[]> {
    if (requests.length > 1) {
      const together = await this.signTogether(network, candidates, requests).catch(() => undefined);
      if (together) return together.map((signed) => ({ signed }));
    }
    const answers: SigningAnswer[] = [];
    for (const request of requests)
      answers.push(
        await this.signTogether(network, candidates, [request]).then(
          ([signed]) => ({ signed: signed! }),
          (failed: unknown) => ({ failed }),
        ),
      );
    return answers;
  }

  /**
   * Signs `requests` with consecutive nonces of one account and keeps their bytes, in one transaction
   * under the lock of the account's nonce sequence (shared by every process). The statements of the
   * settlements go out at once (each a wave: checks, then keeps) on a pipelined connection.
   */
  private signTogether(
    network: Network,
    candidates: readonly string[],
    requests: readonly SigningRequest[],
  ): Promise<Signed<unknown>[]> {
    const { db, clock } = this.deps;
    // With one account to choose from, its pending count is read while its sequence is being locked and
    // the settlements checked: once for the whole batch, and not after the lock is had.
    const only = candidates.length === 1 ? this.signer(candidates[0]!) : undefined;
    const counted = only?.pendingNonce(network);
    counted?.catch(() => undefined);
    return pipelinedTransaction(db, async (trx) => {
      const { relayer, nonces } = await lockRelayerNonces(trx, network.chainId, candidates);
      const instead = await allOrFirstFailure(requests.map((request) => request.keeper.superseded(trx)));
      if (instead.every((value) => value !== undefined)) return instead.map((value) => ({ value, raw: undefined }));
      const signer = this.signer(relayer)!;
      const onChain = await (counted ?? signer.pendingNonce(network));
      let sequence = nonces;
      const settlements: (SignedSettlement | undefined)[] = [];
      for (const [index, request] of requests.entries()) {
        if (instead[index] !== undefined) continue;
        const next = nextRelayerNonce(sequence, onChain, clock.now());
        sequence = next.stored;
        settlements[index] = await signer.signSettlement(
          network,
          request.authorization,
          request.signature,
          next.nonce,
          this.feeCap(network),
          request.price,
        );
      }
      const [, ...kept] = await allOrFirstFailure<unknown>([
        saveRelayerNonces(trx, network.chainId, relayer, sequence),
        ...requests.map((request, index) => {
          const settlement = settlements[index];
          return settlement ? request.keeper.keep(trx, settlement) : Promise.resolve(instead[index]);
        }),
      ]);
      return requests.map((_, index) => ({ value: kept[index], raw: settlements[index]?.raw }));
    });
  }

  private signer(relayer: string): ChainPort | undefined {
    return this.deps.signers.find((signer) => signer.relayer === relayer);
  }

  /** The account that signed kept bytes: a replacement must come from it, with the same nonce. */
  private async signerOf(raw: `0x${string}`): Promise<ChainPort | undefined> {
    const { signers } = this.deps;
    if (signers.length === 1) return signers[0];
    const from = await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized });
    return signers.find((signer) => isAddressEqual(signer.relayer, from));
  }

  /** The highest fee per gas the relayer signs with on the network. */
  feeCap(network: Network): bigint {
    return gweiToWei(network.maxFeePerGasGwei ?? this.deps.maxFeePerGasGwei);
  }
}

/** At most this many settlements are signed in one transaction. */
const MOST_SIGNED_TOGETHER = 64;

/** A settlement waiting to be signed, with what was read for it before any lock. */
interface SigningRequest {
  readonly authorization: TransferAuthorization;
  readonly signature: `0x${string}`;
  readonly keeper: SettlementKeeper<unknown>;
  readonly price: SettlementPrice;
}

/** What the signing gave: the keeper's answer and the bytes to send (none when superseded). */
interface Signed<T> {
  readonly value: T;
  readonly raw: `0x${string}` | undefined;
}

type SigningAnswer = { readonly signed: Signed<unknown> } | { readonly failed: unknown };

/** The relayer cannot pay the gas of a settlement on the network: pay by plain transfer, or later. */
export function relayerUnfunded(network: string): AppError {
  return new AppError(
    'invalid_payment',
    `Gasless payments on ${network} are paused: the payment service cannot pay the network fee right now. Nothing was signed or sent; pay with a plain USDC transfer, or try again later.`,
    { fields: { reason: 'relayer_unfunded' } },
  );
}

/** A broadcast refused because another transaction took the settlement's nonce (chain-errors BroadcastError). */
export function isNonceTaken(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'BroadcastError' &&
    (error as Error & { kind?: string }).kind === 'nonce_taken'
  );
}
