import type { ChainPort } from '../../chain/chain-port.js';
import type { Network } from '../../chain/networks.js';
import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { RelayerWatch } from './relayer-watch.js';
import { SettlementSender } from './settlement-sender.js';

export interface RelayerModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'maxFeePerGasGwei' | 'relayerMinBalanceWei'>;
  /** One port a relayer account (RELAYER_PRIVATE_KEYS), each signing as its `relayer`; the first is the default. */
  readonly signers: readonly ChainPort[];
  readonly networks: readonly Network[];
}

/** The relayer that pays the gas of settlements: its funds on every network, and what it signs and sends. */
export function relayerModule(deps: RelayerModuleDeps) {
  const watch = new RelayerWatch({
    signers: deps.signers,
    networks: deps.networks,
    minBalanceWei: deps.config.relayerMinBalanceWei,
  });
  const sender = new SettlementSender({
    db: deps.db,
    signers: deps.signers,
    clock: deps.clock,
    watch,
    maxFeePerGasGwei: deps.config.maxFeePerGasGwei,
  });
  return { watch, sender };
}
