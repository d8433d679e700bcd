import { encodeAbiParameters, getAddress, keccak256 } from 'viem';

/**
 * What a payer needs to pay an order (an invoice link, a credit purchase) on a network: the EIP-3009
 * nonce its authorization must carry, and an EIP-681 URI for a plain transfer. Pure, no chain access.
 */

/** The first four bytes of every order nonce ("ORDR"): a nonce that carries them was made for some order. */
const ORDER_NONCE_TAG = '0x4f524452';

/**
 * The EIP-3009 nonce bound to an order: `keccak256(abi.encode(string orderId, uint256 version))` with its
 * first four bytes replaced by "ORDR" (0x4f524452). Deterministic: the token accepts a nonce once per
 * payer, so one payer can authorize at most one payment per order version. The tag lets any payment
 * path tell at once that an authorization was made for an order, and so refuse it for any other
 * (a random x402 nonce carries it by chance once in 2^32). Invoices use it as their checkout nonce
 * (checkout/checkout.ts).
 */
export function orderNonce(orderId: string, version: number): `0x${string}` {
  const hash = keccak256(encodeAbiParameters([{ type: 'string' }, { type: 'uint256' }], [orderId, BigInt(version)]));
  return `${ORDER_NONCE_TAG}${hash.slice(ORDER_NONCE_TAG.length)}`;
}

/** Whether the nonce was made for an order by orderNonce (for which one, only that order can tell). */
export function isOrderNonce(nonce: string): boolean {
  return nonce.toLowerCase().startsWith(ORDER_NONCE_TAG);
}

/**
 * An EIP-681 payment request for a QR code: call `transfer(payTo, amount)` on the token on that chain,
 * the amount in the token's base units (USDC micro-units).
 */
export function eip681TransferUri(token: string, chainId: number, payTo: string, amount: bigint): string {
  return `ethereum:${getAddress(token)}@${chainId}/transfer?address=${getAddress(payTo)}&uint256=${amount}`;
}

/** What a payment network's details are made from (a configured network). */
export interface PayableNetwork {
  readonly name: string;
  readonly chainId: number;
  readonly usdc: string;
  readonly tokenName: string;
  readonly tokenVersion: string;
  readonly confirmations: number;
}

/**
 * One network's payment details as checkout JSON and credit purchases show them: the token and its
 * EIP-712 domain for an authorization, the confirmations, and the EIP-681 URI of a plain transfer.
 */
export function paymentNetworkDetails(network: PayableNetwork, payTo: string, amount: bigint) {
  return {
    name: network.name,
    chainId: network.chainId,
    token: getAddress(network.usdc),
    tokenName: network.tokenName,
    tokenVersion: network.tokenVersion,
    confirmations: network.confirmations,
    paymentUri: eip681TransferUri(network.usdc, network.chainId, payTo, amount),
  };
}
