import type { Network } from '../../chain/networks.js';
import type { Db } from '../../db/database.js';
import type { PaymentService } from '../payment-engine/index.js';
import { receiptRoutes } from './receipt.routes.js';
import { ReceiptService } from './receipt.service.js';

/** Receipts of paid invoices: numbered as they are paid, read as JSON or PDF. */
export function receiptsModule(deps: {
  readonly db: Db;
  readonly networks: readonly Network[];
  readonly payments: Pick<PaymentService, 'receipt'>;
}) {
  const receipts = new ReceiptService(deps);
  return { receipts, routes: receiptRoutes({ receipts }) };
}
