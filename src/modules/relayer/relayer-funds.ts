import type { RelayerFunds } from '../../chain/chain-port.js';

/**
 * Gas one settlement is counted at: transferWithAuthorization costs about 60,000 to 85,000 gas (more for
 * a first credit to an address), and the relayer signs with 25 % headroom over the estimate.
 */
export const SETTLEMENT_GAS = 110_000n;
/** With no configured minimum, the relayer is low below the gas of this many settlements at the current fee. */
export const RELAYER_LOW_SETTLEMENTS = 50n;

/** A relayer account's funds on one network as last read, and what they allow. */
export interface RelayerFundsState {
  readonly network: string;
  readonly relayer: string;
  readonly balanceWei: bigint;
  readonly maxFeePerGasWei: bigint;
  /** Below it the relayer is reported low. */
  readonly minBalanceWei: bigint;
  /** The balance pays the gas of one more settlement at the current fee: gasless payments are taken. */
  readonly canPayGas: boolean;
  readonly low: boolean;
  readonly readAt: Date;
}

/** What the funds read allow, against the configured minimum or, without one, RELAYER_LOW_SETTLEMENTS settlements. */
export function judgeFunds(
  network: string,
  relayer: string,
  funds: RelayerFunds,
  configuredMinWei: bigint | undefined,
  readAt: Date,
): RelayerFundsState {
  const settlementWei = SETTLEMENT_GAS * funds.maxFeePerGasWei;
  const minBalanceWei = configuredMinWei ?? RELAYER_LOW_SETTLEMENTS * settlementWei;
  return {
    network,
    relayer,
    ...funds,
    minBalanceWei,
    canPayGas: funds.balanceWei >= settlementWei,
    low: funds.balanceWei < minBalanceWei,
    readAt,
  };
}

/** The operator's words for a low relayer account, in the log and in /readyz; `accounts`: how many there are. */
export function lowFundsWarning(state: RelayerFundsState, accounts = 1): string {
  const consequence =
    accounts > 1
      ? state.canPayGas
        ? 'it stops settling when it cannot pay the next settlement, and the other relayer accounts settle instead'
        : 'it settles nothing until it is funded; the other relayer accounts settle while one of them can pay'
      : state.canPayGas
        ? 'gasless and x402 payments stop when it cannot pay the next settlement'
        : 'gasless and x402 payments are refused until it is funded; plain transfers still pay';
  return `the relayer ${state.relayer} holds ${state.balanceWei} wei on ${state.network}, below ${state.minBalanceWei} wei: ${consequence}`;
}

/** A fee given in gwei (fractions allowed), in wei. */
export function gweiToWei(gwei: number): bigint {
  return BigInt(Math.round(gwei * 1e9));
}
