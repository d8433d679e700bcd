import type { ChainPort } from '../../chain/chain-port.js';
import { blockMs, type Network } from '../../chain/networks.js';
import { judgeFunds, lowFundsWarning, type RelayerFundsState } from './relayer-funds.js';

/** How often the funds are read while no settlement happens. */
export const IDLE_READ_MS = 60_000;
/** How long after a settlement the funds are read once a block rather than once a minute. */
const BUSY_MS = 60_000;

export interface RelayerWatchDeps {
  /** One port a relayer account, each signing as its `relayer`; the first is the default account. */
  readonly signers: readonly ChainPort[];
  readonly networks: readonly Network[];
  /** RELAYER_MIN_BALANCE_WEI; a network's own relayerMinBalanceWei comes first. */
  readonly minBalanceWei: bigint | undefined;
}

export interface RelayerLogger {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

/**
 * Watches the ether of every relayer account on every network: read at most once a block while
 * settlements happen and once a minute otherwise (a read costs two RPC calls), shared by the payment
 * checks, /metrics and /readyz. A change between low and funded is logged once, whichever read sees it.
 */
export class RelayerWatch {
  private readonly states = new Map<string, RelayerFundsState>();
  private readonly reads = new Map<string, Promise<RelayerFundsState>>();
  private readonly busyUntil = new Map<string, number>();
  /** Whether each account on each network was last logged low: the log tells each change once. */
  private readonly reported = new Map<string, boolean>();
  private logger: RelayerLogger | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: RelayerWatchDeps) {}

  /** The relayer accounts watched, in their configured order. */
  get relayers(): string[] {
    return this.deps.signers.map((signer) => signer.relayer);
  }

  /** An account's funds as read within the allowed age; a read is made (once, for every caller) when older. */
  funds(network: Network, signer: ChainPort = this.deps.signers[0]!): Promise<RelayerFundsState> {
    const state = this.states.get(key(network, signer));
    if (state && Date.now() - state.readAt.getTime() < this.maxAgeMs(network)) return Promise.resolve(state);
    return this.read(network, signer);
  }

  /**
   * Whether some relayer account can pay the gas of a settlement now. A refusal is confirmed by a read at
   * most a block old, so a relayer funded a moment ago takes payments by the next block, and checkout
   * pages loaded while it is dry cost at most one read a block.
   */
  async canPayGas(network: Network): Promise<boolean> {
    return (await this.payers(network)).length > 0;
  }

  /**
   * The accounts that can pay the gas of a settlement on the network now, in their configured order. An
   * account whose funds cannot be read now is not ruled out; when none can be read, the error is thrown.
   */
  async payers(network: Network): Promise<ChainPort[]> {
    const able = await Promise.allSettled(
      this.deps.signers.map(async (signer) => {
        const state = await this.funds(network, signer);
        if (state.canPayGas || Date.now() - state.readAt.getTime() < blockMs(network)) return state.canPayGas;
        return (await this.read(network, signer)).canPayGas;
      }),
    );
    const failed = able.find((result) => result.status === 'rejected');
    if (failed && able.every((result) => result.status === 'rejected')) throw failed.reason;
    return this.deps.signers.filter((_, index) => {
      const result = able[index]!;
      return result.status === 'rejected' || result.value;
    });
  }

  /** The funds of every account on every network whose node answers, as funds() reads them; the others are left out. */
  async answering(): Promise<RelayerFundsState[]> {
    const states = await Promise.allSettled(this.everyAccount((network, signer) => this.funds(network, signer)));
    return states.flatMap((state) => (state.status === 'fulfilled' ? [state.value] : []));
  }

  /** The names of the networks watched. */
  networkNames(): string[] {
    return this.deps.networks.map((network) => network.name);
  }

  /** Every account's funds on every network, as funds() reads them. */
  all(): Promise<RelayerFundsState[]> {
    return Promise.all(this.everyAccount((network, signer) => this.funds(network, signer)));
  }

  /** A settlement was signed on the network: its funds are read once a block for a while. */
  noteSettlement(network: Network): void {
    this.busyUntil.set(network.name, Date.now() + BUSY_MS);
  }

  /** Reads every network once a minute, so a relayer running dry is logged even while nobody asks. */
  start(logger: RelayerLogger): void {
    this.logger = logger;
    if (this.timer || this.deps.networks.length === 0) return;
    const tick = () =>
      void this.all().catch((error: unknown) => logger.warn({ err: error }, 'reading the relayer balance failed'));
    tick();
    this.timer = setInterval(tick, IDLE_READ_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private maxAgeMs(network: Network): number {
    const busy = (this.busyUntil.get(network.name) ?? 0) > Date.now();
    return busy ? blockMs(network) : IDLE_READ_MS;
  }

  private everyAccount<T>(each: (network: Network, signer: ChainPort) => Promise<T>): Promise<T>[] {
    return this.deps.networks.flatMap((network) => this.deps.signers.map((signer) => each(network, signer)));
  }

  private read(network: Network, signer: ChainPort): Promise<RelayerFundsState> {
    const account = key(network, signer);
    const pending = this.reads.get(account);
    if (pending) return pending;
    const read = signer
      .relayerFunds(network)
      .then((funds) => {
        const state = judgeFunds(
          network.name,
          signer.relayer,
          funds,
          network.relayerMinBalanceWei ?? this.deps.minBalanceWei,
          new Date(),
        );
        this.record(account, state);
        return state;
      })
      .finally(() => this.reads.delete(account));
    this.reads.set(account, read);
    return read;
  }

  private record(account: string, state: RelayerFundsState): void {
    this.states.set(account, state);
    const was = this.reported.get(account);
    if (!this.logger || was === state.low) return;
    this.reported.set(account, state.low);
    const details = {
      network: state.network,
      relayer: state.relayer,
      balanceWei: String(state.balanceWei),
      minBalanceWei: String(state.minBalanceWei),
    };
    if (state.low) this.logger.warn(details, lowFundsWarning(state, this.deps.signers.length));
    else if (was !== undefined)
      this.logger.info(details, `the relayer ${state.relayer} is funded again on ${state.network}`);
  }
}

function key(network: Network, signer: ChainPort): string {
  return `${network.name} ${signer.relayer}`;
}
