/** What other modules may use of relayer: the nonce sequence of the account that settles payments. */
export { nextRelayerNonce, UNSENT_NONCE_TIMEOUT_MS, type RelayerNonces } from './relayer-nonce.js';
export { lockRelayerNonces, saveRelayerNonces } from './relayer-nonce.repo.js';
