// The EIP-3009 TransferWithAuthorization a checkout payment signs, exactly as the service checks it
// (docs/checkout.md): the token's EIP-712 domain from the payment details, to = recipient, value = the
// amount in micro-units, the link's `authorizationNonce`. Pure: runs in Node too (tests).
import type { Static } from '@sinclair/typebox';
import type { PaymentNetworkView } from '../../../http/common.schemas.js';
import type { AuthorizationBody } from '../../../modules/checkout/index.js';

/** The `authorization` of POST …/authorizations, for a checkout and for a credit purchase alike. */
export type TransferAuthorization = Static<typeof AuthorizationBody>['authorization'];

/** What the authorization is signed for: the amount, who is paid, with which one-time nonce. */
export interface PaymentTerms {
  readonly recipient: string;
  /** USDC with six decimals, as the API writes it. */
  readonly amount: string;
  readonly authorizationNonce: string;
}

/** The EIP-712 typed data of `eth_signTypedData_v4`, domain type included as wallets expect it. */
export interface TransferTypedData {
  readonly types: Record<'EIP712Domain' | 'TransferWithAuthorization', readonly { name: string; type: string }[]>;
  readonly primaryType: 'TransferWithAuthorization';
  readonly domain: { name: string; version: string; chainId: number; verifyingContract: string };
  readonly message: TransferAuthorization;
}

/** How long a signature stays valid: long enough to settle, short enough not to linger (x402 uses 300 s). */
export const VALIDITY_SECONDS = 300;

const DOMAIN_FIELDS = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

const TRANSFER_FIELDS = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
];

/** "12.500000" → "12500000": USDC has six decimals and the API always writes six. */
export function microUnits(amount: string): string {
  const [whole, fraction = ''] = amount.split('.');
  return (BigInt(whole ?? '0') * 1000000n + BigInt(fraction.padEnd(6, '0').slice(0, 6))).toString();
}

/**
 * The authorization body for POST …/authorizations and the typed data for `eth_signTypedData_v4`.
 * `validAfter` is 0 (valid at once, whatever the clocks say); `validBefore` counts from the server's time.
 */
export function transferAuthorization(
  details: PaymentTerms,
  network: Pick<Static<typeof PaymentNetworkView>, 'chainId' | 'token' | 'tokenName' | 'tokenVersion'>,
  from: string,
  serverNowMs: number,
): { authorization: TransferAuthorization; typedData: TransferTypedData } {
  const authorization: TransferAuthorization = {
    from,
    to: details.recipient,
    value: microUnits(details.amount),
    validAfter: '0',
    validBefore: String(Math.floor(serverNowMs / 1000) + VALIDITY_SECONDS),
    nonce: details.authorizationNonce,
  };
  const typedData: TransferTypedData = {
    types: { EIP712Domain: DOMAIN_FIELDS, TransferWithAuthorization: TRANSFER_FIELDS },
    primaryType: 'TransferWithAuthorization',
    domain: {
      name: network.tokenName,
      version: network.tokenVersion,
      chainId: network.chainId,
      verifyingContract: network.token,
    },
    message: authorization,
  };
  return { authorization, typedData };
}

/** Some wallets return `v` as 0/1; the token's ecrecover wants 27/28. Anything else goes on as it is, for the service to refuse. */
export function normalizeSignature(signature: unknown): unknown {
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return signature;
  const v = Number.parseInt(signature.slice(130), 16);
  return v < 27 ? `${signature.slice(0, 130)}${(v + 27).toString(16)}` : signature;
}
