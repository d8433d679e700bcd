import { randomToken, type Branded, type WorkspaceId } from '../../shared/ids.js';
import type { TransferAuthorization } from '../../chain/chain-port.js';
import type { FailureReason } from '../transfer-rules/index.js';
import type { OrderRef } from './order.js';

export type PaymentIntentId = Branded<string, 'PaymentIntentId'>;

/** `reverted`: it had succeeded, then a reorganisation took its transaction out of the chain (payment-finality). */
export type PaymentIntentStatus = 'processing' | 'succeeded' | 'failed' | 'reverted';

export type { FailureReason };

export interface PaymentIntent {
  readonly workspaceId: WorkspaceId;
  readonly id: PaymentIntentId;
  /** The invoice or credit purchase this attempt pays. */
  readonly order: OrderRef;
  readonly method: 'authorization' | 'transaction';
  readonly status: PaymentIntentStatus;
  readonly failureReason: FailureReason | null;
  readonly network: string;
  readonly amount: bigint;
  /** What the transfer brought, when a merchant applied one of another amount; null: `amount`. */
  readonly amountReceived: bigint | null;
  readonly payTo: string;
  readonly payer: string | null;
  readonly linkVersion: number;
  readonly authorization: { readonly authorization: TransferAuthorization; readonly signature: `0x${string}` } | null;
  readonly settlementRaw: `0x${string}` | null;
  /** The payer's own id of this payment (x402's payment-identifier extension), when it named one. */
  readonly paymentIdentifier: string | null;
  readonly txHash: `0x${string}` | null;
  readonly logIndex: number | null;
  readonly blockNumber: bigint | null;
  /** The block that held it when it succeeded: re-checked until final. */
  readonly blockHash: `0x${string}` | null;
  readonly blockTime: Date | null;
  readonly submittedAt: Date;
  /**
   * When a transfer paying the order was found in a block (or the authorization was verified): the
   * attempt is announced from then on. A submitted hash without it is a claim that holds nothing.
   */
  readonly foundAt: Date | null;
  /** This attempt keeps its order `processing`. */
  readonly holdsOrder: boolean;
  /** Succeeded after another payment had paid the order (or the invoice was cancelled): recorded, never lost. */
  readonly overpayment: boolean;
  readonly finishedAt: Date | null;
  readonly createdAt: Date;
}

export function newPaymentIntentId(): PaymentIntentId {
  return `pi_${randomToken()}` as PaymentIntentId;
}
