/** What other modules may use of relayer: its funds on every network, and the settlements it signs and sends. */
export { nextRelayerNonce, UNSENT_NONCE_TIMEOUT_MS, type RelayerNonces } from './relayer-nonce.js';
export { lockRelayerNonces, saveRelayerNonces } from './relayer-nonce.repo.js';
export { lowFundsWarning, type RelayerFundsState } from './relayer-funds.js';
export { RelayerWatch, type RelayerLogger } from './relayer-watch.js';
export {
  SettlementSender,
  isNonceTaken,
  relayerUnfunded,
  type SettlementKeeper,
  type StuckOutcome,
} from './settlement-sender.js';
export { relayerModule } from './relayer.module.js';
