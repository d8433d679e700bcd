/**
 * Whether a transaction pays an order: the pure rules a submitted or found transfer is judged by, and the
 * reasons a payment attempt fails (docs/checkout.md). The payment engine reads the chain and applies them.
 */
export {
  CLOCK_SKEW_MS,
  UNMINED_WINDOW_MS,
  judgeTransfer,
  type FailureReason,
  type TransferExpectation,
  type TransferVerdict,
} from './transfer-rules.js';
