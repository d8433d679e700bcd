import { getAddress } from 'viem';
import type { Network } from '../../chain/networks.js';
import type { TransferAuthorization } from '../../chain/chain-port.js';
import { VALIDITY_MARGIN_SECONDS, type PayableOrder, type SignedAuthorization } from '../payment-engine/index.js';
import { PAYMENT_IDENTIFIER, PAYMENT_IDENTIFIER_DECLARATION, paymentIdentifierOf } from './payment-identifier.js';

/** The payment an order asks for on one network, before it is spelled for a protocol version. */
export interface Requirement {
  readonly network: Network;
  readonly amount: bigint;
  readonly payTo: `0x${string}`;
  /** The token address in checksum spelling: x402-fetch prefers an exact match with its USDC table. */
  readonly asset: `0x${string}`;
  readonly maxTimeoutSeconds: number;
  readonly linkVersion: number;
}

const MAX_TIMEOUT_SECONDS = 300;

/** What an open order asks for at `now`, one requirement per network it may be paid on. */
export function requirementsOf(order: PayableOrder, now: Date): Requirement[] {
  const secondsLeft = Math.floor((order.expiresAt.getTime() - now.getTime()) / 1000);
  return order.networks.map((network) => ({
    network,
    amount: order.amount,
    payTo: checksummed(order.payTo),
    asset: checksummed(network.usdc),
    maxTimeoutSeconds: Math.max(1, Math.min(MAX_TIMEOUT_SECONDS, secondsLeft - VALIDITY_MARGIN_SECONDS)),
    linkVersion: order.linkVersion,
  }));
}

/**
 * EIP-55 spellings, remembered: every 402 shows two addresses, and viem's own cache costs a few
 * microseconds a lookup. Emptied when full (the addresses are workspace wallets and a few tokens).
 */
const CHECKSUMMED = new Map<string, `0x${string}`>();
function checksummed(address: string): `0x${string}` {
  let spelled = CHECKSUMMED.get(address);
  if (spelled === undefined) {
    if (CHECKSUMMED.size >= 10_000) CHECKSUMMED.clear();
    CHECKSUMMED.set(address, (spelled = getAddress(address)));
  }
  return spelled;
}

export interface Resource {
  readonly url: string;
  readonly description: string;
}

/** Protocol v1 names of chains (x402-fetch validates `network` against its own list). */
const V1_NETWORK_NAMES: Readonly<Record<number, string>> = { 84532: 'base-sepolia', 8453: 'base' };

export function v1NetworkName(network: Network): string {
  return V1_NETWORK_NAMES[network.chainId] ?? network.name;
}

export function v2NetworkName(network: Network): string {
  return `eip155:${network.chainId}`;
}

function extra(requirement: Requirement) {
  // linkVersion rides along in `extra`, which v2 clients echo back: a payment for an older link is refused.
  return {
    name: requirement.network.tokenName,
    version: requirement.network.tokenVersion,
    linkVersion: requirement.linkVersion,
  };
}

/** The v1 JSON body of a 402. */
export function v1PaymentRequired(requirements: readonly Requirement[], resource: Resource, error: string) {
  return {
    x402Version: 1,
    error,
    accepts: requirements.map((requirement) => ({
      scheme: 'exact',
      network: v1NetworkName(requirement.network),
      maxAmountRequired: requirement.amount.toString(),
      resource: resource.url,
      description: resource.description,
      mimeType: 'application/json',
      payTo: requirement.payTo,
      maxTimeoutSeconds: requirement.maxTimeoutSeconds,
      asset: requirement.asset,
      outputSchema: { input: { type: 'http', method: 'GET' }, output: null },
      extra: extra(requirement),
    })),
  };
}

/** The v2 `PAYMENT-REQUIRED` header value: standard base64 of the JSON. */
export function v2PaymentRequiredHeader(
  requirements: readonly Requirement[],
  resource: Resource,
  error: string,
): string {
  const body = {
    x402Version: 2,
    error,
    resource: { url: resource.url, description: resource.description, mimeType: 'application/json' },
    accepts: requirements.map((requirement) => ({
      scheme: 'exact',
      network: v2NetworkName(requirement.network),
      amount: requirement.amount.toString(),
      asset: requirement.asset,
      payTo: requirement.payTo,
      maxTimeoutSeconds: requirement.maxTimeoutSeconds,
      extra: extra(requirement),
    })),
    extensions: { [PAYMENT_IDENTIFIER]: PAYMENT_IDENTIFIER_DECLARATION },
  };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64');
}

/** A decoded payment header: which network the payer chose, what they signed, and what they accepted. */
export interface PaymentSubmission extends SignedAuthorization {
  readonly version: 1 | 2;
  /** The chain id the payer names (from the v1 network name or the v2 CAIP-2 id). */
  readonly chainId: number | undefined;
  /** v2 only: the link version echoed in `accepted.extra`. */
  readonly linkVersion: number | undefined;
  /** v2 only: the URL of the resource the payment was made for, when the client names it. */
  readonly resourceUrl: string | undefined;
  /** v2 only: the client's own id of this payment (the payment-identifier extension), when it names one. */
  readonly paymentIdentifier: string | undefined;
}

const HEX = /^0x[0-9a-fA-F]*$/;
const UINT = /^\d{1,78}$/;

/**
 * Decodes `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1). Returns a reason string for anything malformed;
 * it never throws on client input.
 */
export function decodePaymentHeader(value: string, version: 1 | 2): PaymentSubmission | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    return 'the payment header is not base64-encoded JSON';
  }
  const root = parsed as Record<string, unknown> | null;
  const payload = root?.payload as Record<string, unknown> | undefined;
  const authorization = payload?.authorization as Record<string, unknown> | undefined;
  const signature = payload?.signature;
  if (!authorization || typeof signature !== 'string' || !HEX.test(signature))
    return 'the payment header has no signed authorization';
  const { from, to, value: amount, validAfter, validBefore, nonce } = authorization;
  const addresses = [from, to].every((item) => typeof item === 'string' && /^0x[0-9a-fA-F]{40}$/.test(item));
  const numbers = [amount, validAfter, validBefore].every((item) => typeof item === 'string' && UINT.test(item));
  if (!addresses || !numbers || typeof nonce !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) {
    return 'the authorization is malformed';
  }
  const accepted = root?.accepted as Record<string, unknown> | undefined;
  // Only a string names a network; String() of an object can throw (a "toString" field that is not a function).
  const network = version === 2 ? accepted?.network : root?.network;
  const networkName = typeof network === 'string' ? network : '';
  const linkVersion = (accepted?.extra as Record<string, unknown> | undefined)?.linkVersion;
  const resourceUrl = (root?.resource as Record<string, unknown> | undefined)?.url;
  const paymentIdentifier = version === 2 ? paymentIdentifierOf(root) : undefined;
  if (typeof paymentIdentifier === 'object') return paymentIdentifier.invalid;
  return {
    version,
    chainId: chainIdOf(networkName),
    authorization: { from, to, value: amount, validAfter, validBefore, nonce } as TransferAuthorization,
    signature: signature as `0x${string}`,
    linkVersion: typeof linkVersion === 'number' ? linkVersion : undefined,
    resourceUrl: version === 2 && typeof resourceUrl === 'string' ? resourceUrl : undefined,
    paymentIdentifier,
  };
}

/**
 * Why a v2 payment was not made for this resource, or undefined. A v2 client echoes the requirements it
 * accepted, with the link version in their `extra`, and names the resource: a payment built from
 * another invoice's 402 (same merchant, same amount: same requirements) names that invoice's URL, and
 * one without a link version was not built from a 402 of ours.
 */
export function v2PaymentMismatch(submission: PaymentSubmission, resourceUrl: string): string | undefined {
  if (submission.version !== 2) return undefined;
  if (submission.resourceUrl !== undefined && submission.resourceUrl !== resourceUrl)
    return `the payment was made for another resource (${submission.resourceUrl.slice(0, 200)}); it pays only that one`;
  if (submission.linkVersion === undefined)
    return 'the payment does not echo the requirements of this 402 (accepted.extra.linkVersion is missing)';
  return undefined;
}

function chainIdOf(network: string): number | undefined {
  const caip = /^eip155:(\d+)$/.exec(network);
  if (caip) return Number(caip[1]);
  const entry = Object.entries(V1_NETWORK_NAMES).find(([, name]) => name === network);
  return entry ? Number(entry[0]) : undefined;
}

/** `PAYMENT-RESPONSE` / `X-PAYMENT-RESPONSE`: base64 JSON the clients hand to their callers. */
export function paymentResponseHeader(result: {
  success: boolean;
  transaction: string;
  network: string;
  payer: string;
  errorReason?: string;
}): string {
  return Buffer.from(JSON.stringify(result), 'utf8').toString('base64');
}
