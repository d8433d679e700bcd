import { encodeAbiParameters, getAddress, keccak256 } from 'viem';

/**
 * The EIP-3009 nonce a checkout authorization must carry: `keccak256(abi.encode(string invoiceId,
 * uint256 linkVersion))`. Deterministic, with no salt: the token lets a payer use a nonce once, so a
 * wallet can authorize at most one payment per invoice link version, and a link renewed since the
 * signature (a new version, a new nonce) refuses the old authorization.
 */
export function checkoutNonce(invoiceId: string, linkVersion: number): `0x${string}` {
  return keccak256(encodeAbiParameters([{ type: 'string' }, { type: 'uint256' }], [invoiceId, BigInt(linkVersion)]));
}

/** Which link version a nonce was made for (1 … current), or undefined when it is no checkout nonce of the invoice. */
export function nonceLinkVersion(invoiceId: string, currentVersion: number, nonce: string): number | undefined {
  const wanted = nonce.toLowerCase();
  for (let version = currentVersion; version >= 1; version -= 1) {
    if (checkoutNonce(invoiceId, version) === wanted) return version;
  }
  return undefined;
}

/**
 * An EIP-681 payment request for a QR code: call `transfer(payTo, amount)` on the token on that chain.
 * Amount in the token's base units (USDC micro-units), as EIP-681 wants for a `uint256` parameter.
 */
export function eip681TransferUri(token: string, chainId: number, payTo: string, amount: bigint): string {
  return `ethereum:${getAddress(token)}@${chainId}/transfer?address=${getAddress(payTo)}&uint256=${amount}`;
}
