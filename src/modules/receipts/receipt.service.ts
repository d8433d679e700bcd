import { chainName } from '../../chain/chain-names.js';
import type { Network } from '../../chain/networks.js';
import type { Db } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { PaymentService } from '../payment-engine/index.js';
import { findWorkspace } from '../workspaces/index.js';
import { formatReceiptNumber, type Receipt } from './receipt.js';
import { findReceipt } from './receipt.repo.js';

export interface ReceiptServiceDeps {
  readonly db: Db;
  readonly networks: readonly Network[];
  readonly payments: Pick<PaymentService, 'receipt'>;
}

/** The receipt of a paid invoice, for the merchant's API and for the buyer's checkout link. */
export class ReceiptService {
  constructor(private readonly deps: ReceiptServiceDeps) {}

  async read(workspaceId: WorkspaceId, invoiceId: string): Promise<Receipt> {
    const { invoice, payment } = await this.deps.payments.receipt(workspaceId, invoiceId);
    const [numbered, workspace] = await Promise.all([
      findReceipt(this.deps.db, workspaceId, invoiceId),
      findWorkspace(this.deps.db, workspaceId),
    ]);
    // A paid invoice's receipt is written in the transaction that paid it: none here is a paid state
    // this reader saw before that transaction's receipt (it committed in between), so say not yet.
    if (!numbered || !workspace)
      throw new AppError('invoice_not_paid', 'This invoice is not paid yet; a receipt exists once it is.');
    const network = this.deps.networks.find((candidate) => candidate.name === payment.network);
    const chainId = network?.chainId ?? 0;
    const { label, testnet } = chainName(chainId, payment.network);
    return {
      receiptNumber: formatReceiptNumber(numbered.number),
      invoiceId,
      invoice,
      payment,
      merchant: { name: workspace.name, supportContact: workspace.support_contact },
      network: { name: payment.network, chainId, label, testnet },
      transactionUrl: network?.explorerUrl && payment.txHash ? `${network.explorerUrl}/tx/${payment.txHash}` : null,
    };
  }
}
