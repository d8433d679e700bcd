import { orderNonce } from '../../shared/payment-request.js';

export { eip681TransferUri } from '../../shared/payment-request.js';

/**
 * The EIP-3009 nonce a checkout authorization must carry: the order nonce of the invoice and its link
 * version. No salt: the token lets a payer use a nonce once, so a wallet can authorize at most one
 * payment per invoice link version, and a link renewed since the signature (a new version, a new
 * nonce) refuses the old authorization.
 */
export function checkoutNonce(invoiceId: string, linkVersion: number): `0x${string}` {
  return orderNonce(invoiceId, linkVersion);
}
