import { encodeAbiParameters, getAddress, keccak256 } from 'viem';

/**
 * What a payer needs to pay an order (an invoice link, a credit purchase) on a network: the EIP-3009
 * nonce its authorization must carry, and an EIP-681 URI for a plain transfer. Pure, no chain access.
 */

/**
 * The EIP-3009 nonce bound to an order: `keccak256(abi.encode(string orderId, uint256 version))`.
 * Deterministic: the token accepts a nonce once per payer, so one payer can authorize at most one
 * payment per order version. The same formula as the checkout nonce of invoices (payments/checkout.ts).
 */
export function orderNonce(orderId: string, version: number): `0x${string}` {
  return keccak256(encodeAbiParameters([{ type: 'string' }, { type: 'uint256' }], [orderId, BigInt(version)]));
}

/**
 * An EIP-681 payment request for a QR code: call `transfer(payTo, amount)` on the token on that chain,
 * the amount in the token's base units (USDC micro-units).
 */
export function eip681TransferUri(token: string, chainId: number, payTo: string, amount: bigint): string {
  return `ethereum:${getAddress(token)}@${chainId}/transfer?address=${getAddress(payTo)}&uint256=${amount}`;
}
