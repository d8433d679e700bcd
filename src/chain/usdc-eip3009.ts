import { parseAbi, parseSignature, size, type Hex, type TypedDataDomain } from 'viem';
import type { TransferAuthorization } from './chain-port.js';
import type { Network } from './networks.js';

/**
 * The part of Circle's FiatToken (USDC v2.2) the relayer uses. Written out rather than taken from the test
 * token's artifact: production code talks to the real contract, whose interface this is.
 */
export const usdcAbi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
]);

export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

// Half the secp256k1 order: FiatToken refuses signatures with a larger s (malleable copies).
const HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** The token's EIP-712 domain, as payers sign it (x402 `extra` carries name and version). */
export function usdcDomain(network: Network): TypedDataDomain {
  return {
    name: network.tokenName,
    version: network.tokenVersion,
    chainId: network.chainId,
    verifyingContract: network.usdc,
  };
}

// A type alias, not an interface: viem wants typed-data messages assignable to Record<string, unknown>.
export type AuthorizationMessage = {
  readonly from: `0x${string}`;
  readonly to: `0x${string}`;
  readonly value: bigint;
  readonly validAfter: bigint;
  readonly validBefore: bigint;
  readonly nonce: `0x${string}`;
};

/** Throws (SyntaxError/RangeError) when a number is not a non-negative decimal integer string. */
export function authorizationMessage(authorization: TransferAuthorization): AuthorizationMessage {
  return {
    from: authorization.from,
    to: authorization.to,
    value: uint256(authorization.value),
    validAfter: uint256(authorization.validAfter),
    validBefore: uint256(authorization.validBefore),
    nonce: authorization.nonce,
  };
}

function uint256(decimal: string): bigint {
  if (!/^\d{1,78}$/.test(decimal)) throw new SyntaxError(`not a decimal uint256: "${decimal}"`);
  const value = BigInt(decimal);
  if (value >= 2n ** 256n) throw new RangeError(`out of uint256 range: ${decimal}`);
  return value;
}

/** An ECDSA signature split for the (v, r, s) overload; v is 27 or 28. s is not checked here (see isLowS). */
export interface VrsSignature {
  readonly v: number;
  readonly r: Hex;
  readonly s: Hex;
}

/**
 * Splits a 65-byte signature into v (27/28, also when signed with a 0/1 recovery id), r and s; undefined
 * for any other length or an unknown v, which only the `bytes signature` overload can carry.
 */
export function vrsSignature(signature: Hex): VrsSignature | undefined {
  if (!/^0x[0-9a-fA-F]*$/.test(signature) || size(signature) !== 65) return undefined;
  try {
    const { r, s, yParity } = parseSignature(signature);
    return { v: 27 + yParity, r, s };
  } catch {
    return undefined;
  }
}

export function isLowS(signature: VrsSignature): boolean {
  return BigInt(signature.s) <= HALF_CURVE_ORDER;
}

/**
 * Arguments of transferWithAuthorization: the (v, r, s) overload for 65-byte signatures, which every USDC
 * version has; the `bytes signature` overload (USDC v2.2, for smart-wallet signatures) otherwise, as the
 * x402 facilitators do. Throws when a number in the authorization is not a uint256.
 */
export function settlementArgs(authorization: TransferAuthorization, signature: Hex) {
  const m = authorizationMessage(authorization);
  const vrs = vrsSignature(signature);
  const head = [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce] as const;
  return vrs ? ([...head, vrs.v, vrs.r, vrs.s] as const) : ([...head, signature] as const);
}
