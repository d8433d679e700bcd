import type { Network } from '../../chain/networks.js';
import type { Db, Executor } from '../../db/database.js';
import type { WorkspaceWrites } from '../events/index.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { OrderBook, PayableOrder, PaymentStep, StepResult } from '../payment-engine/index.js';
import {
  PURCHASE_NONCE_VERSION,
  effectiveStatus,
  type CreditPurchase,
  type CreditPurchaseId,
} from './credit-purchase.js';
import { findPurchase } from './credit-purchase.repo.js';
import type { CreditPurchaseService } from './credit-purchase.service.js';

/** What decides whether a purchase can take a payment: its row (undefined: no such purchase). */
export interface PurchasePayState {
  readonly purchase: CreditPurchase | undefined;
}

export interface PurchaseOrderBookDeps {
  readonly db: Db;
  readonly networks: readonly Network[];
  /** The wallet credit purchases pay now; a purchase made for another one takes no new payment. */
  readonly operatorWallet: string | undefined;
  /** Its applyPaymentStep writes a step, and the credits of the step into `paid`. */
  readonly purchases: CreditPurchaseService;
}

/** Credit purchases as the payment engine sees them: what may pay one, and its payment steps. */
export class PurchaseOrderBook implements OrderBook<PurchasePayState> {
  constructor(private readonly deps: PurchaseOrderBookDeps) {}

  async find(db: Executor, workspaceId: WorkspaceId, id: string): Promise<PayableOrder | undefined> {
    const purchase = await findPurchase(db, workspaceId, id as CreditPurchaseId);
    return purchase && this.payableOf(purchase);
  }

  async read(workspaceId: WorkspaceId, id: string): Promise<PurchasePayState> {
    return { purchase: await findPurchase(this.deps.db, workspaceId, id as CreditPurchaseId) };
  }

  judge({ purchase }: PurchasePayState, now: Date): PayableOrder {
    const { operatorWallet } = this.deps;
    if (!operatorWallet)
      throw new AppError(
        'purchases_unavailable',
        'Credit purchases are not available on this service: its operator has not configured the wallet that receives them (OPERATOR_WALLET).',
      );
    if (!purchase) throw new AppError('not_found', 'No such credit purchase.');
    const status = effectiveStatus(purchase, now);
    if (status === 'paid')
      throw new AppError('purchase_paid', 'This credit purchase is already paid. Do not pay again.');
    if (status === 'processing')
      throw new AppError(
        'purchase_processing',
        'A payment for this credit purchase is being verified. Do not pay again.',
      );
    if (status === 'expired')
      throw new AppError('purchase_expired', 'This credit purchase has expired; make a new one to buy credits.');
    if (purchase.payTo !== operatorWallet.toLowerCase())
      throw new AppError(
        'pay_to_mismatch',
        'This credit purchase was made for another operator wallet and accepts no payment; make a new one.',
      );
    return this.payableOf(purchase);
  }

  async lock(trx: Executor, workspaceId: WorkspaceId, id: string): Promise<boolean> {
    return (await findPurchase(trx, workspaceId, id as CreditPurchaseId, true)) !== undefined;
  }

  async apply(
    trx: Executor,
    workspaceId: WorkspaceId,
    id: string,
    step: PaymentStep,
    at: Date,
    writes: WorkspaceWrites,
  ): Promise<StepResult | undefined> {
    const applied = await this.deps.purchases.applyPaymentStep(trx, workspaceId, id as CreditPurchaseId, step, at);
    if (applied?.result.ok && step.type === 'payment_succeeded') {
      const { purchase } = applied;
      writes.tell((log) =>
        log.info(
          { workspaceId, creditPurchaseId: purchase.id, network: step.network },
          `credit purchase paid: ${purchase.credits} credits (package ${purchase.packageId}) added to workspace ${workspaceId}`,
        ),
      );
    }
    return applied?.result;
  }

  async revertPayment(trx: Executor, workspaceId: WorkspaceId, id: string, at: Date): Promise<void> {
    await this.deps.purchases.applyPaymentStep(
      trx,
      workspaceId,
      id as CreditPurchaseId,
      { type: 'payment_reverted' },
      at,
    );
  }

  private payableOf(purchase: CreditPurchase): PayableOrder {
    return {
      ref: { kind: 'credit_purchase', id: purchase.id },
      amount: purchase.price,
      payTo: purchase.payTo,
      networks: this.deps.networks,
      createdAt: purchase.createdAt,
      expiresAt: purchase.expiresAt,
      linkVersion: PURCHASE_NONCE_VERSION,
      linkIssuedAt: purchase.createdAt,
      description: `${purchase.credits} credits (package ${purchase.packageId})`,
    };
  }
}
