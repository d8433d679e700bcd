import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError } from 'viem';

/**
 * Revert messages of Circle's FiatToken v2.2 (copied by contracts/TestUSDC.sol) and the short codes
 * simulateSettlement reports for them. Matched as substrings: nodes prefix "execution reverted: ".
 */
const REVERT_CODES: readonly (readonly [string, string])[] = [
  ['FiatTokenV2: authorization is used or canceled', 'nonce_already_used'],
  ['ERC20: transfer amount exceeds balance', 'insufficient_balance'],
  ['FiatTokenV2: authorization is expired', 'authorization_expired'],
  ['FiatTokenV2: authorization is not yet valid', 'authorization_not_yet_valid'],
  // "FiatTokenV2: invalid signature" and every "ECRecover: invalid signature…" (length, 's' value, 'v' value).
  ['FiatTokenV2: invalid signature', 'invalid_signature'],
  ['ECRecover: invalid signature', 'invalid_signature'],
];

/**
 * The short reason for a reverted call (simulation or gas estimate), or undefined when the error is not a
 * revert (the node could not be reached, answered garbage…): those are not the payer's fault.
 */
export function revertReason(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined;
  // viem decodes the reason when it knows the ABI (simulateContract); otherwise the node's text carries it.
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ExecutionRevertedError);
  if (!(reverted instanceof BaseError)) return undefined;
  const reason = reverted instanceof ContractFunctionRevertedError ? reverted.reason : undefined;
  const message = reason || reverted.details || reverted.shortMessage;
  const known = REVERT_CODES.find(([text]) => message.includes(text));
  return known ? known[1] : `simulation_failed: ${firstLine(message)}`;
}

/** What the node said, without viem's request dump (which repeats the whole signed transaction). */
export function nodeMessage(error: unknown): string {
  if (error instanceof BaseError) return firstLine(error.details || error.shortMessage);
  return firstLine(error instanceof Error ? error.message : String(error));
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

// geth/erigon/reth "already known", anvil "transaction already imported", besu "Known transaction",
// nethermind "AlreadyKnown": the node has these exact bytes.
const ALREADY_KNOWN = /already known|already imported|known transaction|alreadyknown/i;
// The nonce was used by another transaction (mined, or waiting in the pool with the same nonce).
const NONCE_TAKEN = /nonce too low|replacement transaction underpriced|replacement fee too low|oldnonce|invalid nonce/i;

export function isAlreadyKnown(error: unknown): boolean {
  return ALREADY_KNOWN.test(nodeMessage(error));
}

export function isNonceTaken(error: unknown): boolean {
  return NONCE_TAKEN.test(nodeMessage(error));
}

/**
 * A broadcast the node refused. `nonce_taken`: these bytes can never be mined (their nonce went to another
 * transaction); sign the settlement again. `rejected`: anything else (no gas money, node unreachable…);
 * sending the same bytes later may work.
 */
export class BroadcastError extends Error {
  override name = 'BroadcastError';
  constructor(
    readonly kind: 'nonce_taken' | 'rejected',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The settlement would revert: the token's own checks refuse it now (`reason` as simulateSettlement
 * reports it: "nonce_already_used", "insufficient_balance"…). Not a node failure: sending it could only fail.
 */
export class SettlementWouldRevert extends Error {
  override name = 'SettlementWouldRevert';
  constructor(
    readonly reason: string,
    network: string,
  ) {
    super(`a settlement on ${network} would revert: ${reason}`);
  }
}
