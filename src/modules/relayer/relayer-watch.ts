import type { ChainPort } from '../../chain/chain-port.js';
import { blockMs, type Network } from '../../chain/networks.js';
import { judgeFunds, lowFundsWarning, type RelayerFundsState } from './relayer-funds.js';

/** How often the funds are read while no settlement happens. */
export const IDLE_READ_MS = 60_000;
/** How long after a settlement the funds are read once a block rather than once a minute. */
const BUSY_MS = 60_000;

export interface RelayerWatchDeps {
  readonly chain: ChainPort;
  readonly networks: readonly Network[];
  /** RELAYER_MIN_BALANCE_WEI; a network's own relayerMinBalanceWei comes first. */
  readonly minBalanceWei: bigint | undefined;
}

export interface RelayerLogger {
  warn(object: object, message: string): void;
  info(object: object, message: string): void;
}

/**
 * Watches the relayer's ether on every network: read at most once a block while settlements happen and
 * once a minute otherwise (a read costs two RPC calls), shared by the payment checks, /metrics and
 * /readyz. A change between low and funded is logged once, whichever read sees it.
 */
export class RelayerWatch {
  private readonly states = new Map<string, RelayerFundsState>();
  private readonly reads = new Map<string, Promise<RelayerFundsState>>();
  private readonly busyUntil = new Map<string, number>();
  /** Whether each network was last logged low: the log tells each change once. */
  private readonly reported = new Map<string, boolean>();
  private logger: RelayerLogger | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: RelayerWatchDeps) {}

  /** The relayer account watched. */
  get relayer(): string {
    return this.deps.chain.relayer;
  }

  /** The funds as read within the allowed age; a read is made (once, for every caller) when older. */
  funds(network: Network): Promise<RelayerFundsState> {
    const state = this.states.get(network.name);
    if (state && Date.now() - state.readAt.getTime() < this.maxAgeMs(network)) return Promise.resolve(state);
    return this.read(network);
  }

  /**
   * Whether the relayer can pay the gas of a settlement now. A refusal is confirmed by a read at most a
   * block old, so a relayer funded a moment ago takes payments by the next block, and checkout pages
   * loaded while it is dry cost at most one read a block.
   */
  async canPayGas(network: Network): Promise<boolean> {
    const state = await this.funds(network);
    if (state.canPayGas || Date.now() - state.readAt.getTime() < blockMs(network)) return state.canPayGas;
    return (await this.read(network)).canPayGas;
  }

  /** The funds of every network whose node answers, as funds() reads them; the others are left out. */
  async answering(): Promise<RelayerFundsState[]> {
    const states = await Promise.allSettled(this.deps.networks.map((network) => this.funds(network)));
    return states.flatMap((state) => (state.status === 'fulfilled' ? [state.value] : []));
  }

  /** The names of the networks watched. */
  networkNames(): string[] {
    return this.deps.networks.map((network) => network.name);
  }

  /** Every network's funds, as funds() reads them. */
  all(): Promise<RelayerFundsState[]> {
    return Promise.all(this.deps.networks.map((network) => this.funds(network)));
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

  private read(network: Network): Promise<RelayerFundsState> {
    const pending = this.reads.get(network.name);
    if (pending) return pending;
    const read = this.deps.chain
      .relayerFunds(network)
      .then((funds) => {
        const state = judgeFunds(
          network.name,
          funds,
          network.relayerMinBalanceWei ?? this.deps.minBalanceWei,
          new Date(),
        );
        this.record(state);
        return state;
      })
      .finally(() => this.reads.delete(network.name));
    this.reads.set(network.name, read);
    return read;
  }

  private record(state: RelayerFundsState): void {
    this.states.set(state.network, state);
    const was = this.reported.get(state.network);
    if (!this.logger || was === state.low) return;
    this.reported.set(state.network, state.low);
    const details = {
      network: state.network,
      balanceWei: String(state.balanceWei),
      minBalanceWei: String(state.minBalanceWei),
    };
    if (state.low) this.logger.warn(details, lowFundsWarning(state, this.relayer));
    else if (was !== undefined) this.logger.info(details, `the relayer is funded again on ${state.network}`);
  }
}
