import type { TransferAuthorization } from '../../chain/chain-port.js';

/** A signed EIP-3009 authorization offered to pay an order, and what the payer says it was made for. */
export interface SignedAuthorization {
  /** The chain id the payer names. */
  readonly chainId: number | undefined;
  readonly authorization: TransferAuthorization;
  readonly signature: `0x${string}`;
  /** The link version the payer signed for, when the payment says (the checkout page, x402 v2). */
  readonly linkVersion: number | undefined;
  /** The payer's own id of this payment (x402's payment-identifier), kept with the attempt. */
  readonly paymentIdentifier?: string | undefined;
}
