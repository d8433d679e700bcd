import type { Network } from '../../chain/networks.js';
import type { Db, Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import {
  PURCHASE_NONCE_VERSION,
  findPurchase,
  effectiveStatus as purchaseStatus,
  type CreditPurchase,
  type CreditPurchaseService,
} from '../credit-purchases/index.js';
import {
  effectiveStatus as invoiceStatus,
  findInvoice,
  formatInvoiceNumber,
  lockInvoice,
  persistTransition,
  transition,
  type Invoice,
} from '../invoices/index.js';
import { findWorkspace } from '../workspaces/index.js';
import type { OrderRef, PayableOrder, StepResult } from './order.js';

/** An order's row as read (undefined: no such order), with what else decides whether it is payable. */
export type OrderState =
  | { readonly kind: 'invoice'; readonly invoice: Invoice | undefined; readonly wallet: string | undefined }
  | { readonly kind: 'credit_purchase'; readonly purchase: CreditPurchase | undefined };

/** The payment steps the engine reports to an order's state machine. */
export type PaymentStep =
  | { readonly type: 'begin_payment'; readonly startedAt: Date }
  | { readonly type: 'payment_failed' }
  | { readonly type: 'payment_succeeded'; readonly network: string };

export interface OrdersDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly networks: readonly Network[];
  /** Links in invoice events are built on it, as GET /invoices/{id} builds them. */
  readonly publicBaseUrl: URL;
  readonly creditPurchases: CreditPurchaseService;
  /** The wallet credit purchases pay now; a purchase made for another one takes no new payment. */
  readonly operatorWallet: string | undefined;
}

/**
 * The orders the payment engine takes payments for — invoices and credit purchases — behind one face:
 * read one as a PayableOrder, refuse one that cannot take a payment now (with its own 409 code), and
 * hand each payment step to its state machine inside the engine's transaction.
 */
export class Orders {
  constructor(private readonly deps: OrdersDeps) {}

  /** The order as it is (any status), or undefined when the workspace has no such order. */
  async find(db: Executor, workspaceId: WorkspaceId, ref: OrderRef): Promise<PayableOrder | undefined> {
    if (ref.kind === 'invoice') {
      const invoice = await findInvoice(db, workspaceId, ref.id);
      return invoice && this.fromInvoice(invoice);
    }
    const purchase = await findPurchase(db, workspaceId, ref.id);
    return purchase && this.fromPurchase(purchase);
  }

  /** The order, if it can take a new payment now; otherwise the error that says why. */
  async payable(workspaceId: WorkspaceId, ref: OrderRef): Promise<PayableOrder> {
    return this.judge(await this.read(workspaceId, ref), this.deps.clock.now());
  }

  /**
   * What decides whether an order can take a payment: its row and, for an invoice, the workspace's wallet.
   * Changes of either are announced on ORDER_CHANGES_CHANNEL, so a copy can be kept while they are heard.
   */
  async read(workspaceId: WorkspaceId, ref: OrderRef): Promise<OrderState> {
    if (ref.kind === 'credit_purchase')
      return { kind: 'credit_purchase', purchase: await findPurchase(this.deps.db, workspaceId, ref.id) };
    const [invoice, workspace] = await Promise.all([
      findInvoice(this.deps.db, workspaceId, ref.id),
      findWorkspace(this.deps.db, workspaceId),
    ]);
    return { kind: 'invoice', invoice, wallet: workspace?.wallet_address };
  }

  /** The order of `state`, if it can take a new payment at `now`; otherwise the error that says why. */
  judge(state: OrderState, now: Date): PayableOrder {
    if (state.kind === 'credit_purchase') {
      if (!this.deps.operatorWallet)
        throw new AppError(
          'purchases_unavailable',
          'Credit purchases are not available on this service: its operator has not configured the wallet that receives them (OPERATOR_WALLET).',
        );
      const { purchase } = state;
      if (!purchase) throw new AppError('not_found', 'No such credit purchase.');
      const status = purchaseStatus(purchase, now);
      if (status === 'paid')
        throw new AppError('purchase_paid', 'This credit purchase is already paid. Do not pay again.');
      if (status === 'processing')
        throw new AppError(
          'purchase_processing',
          'A payment for this credit purchase is being verified. Do not pay again.',
        );
      if (status === 'expired')
        throw new AppError('purchase_expired', 'This credit purchase has expired; make a new one to buy credits.');
      if (purchase.payTo !== this.deps.operatorWallet.toLowerCase())
        throw new AppError(
          'pay_to_mismatch',
          'This credit purchase was made for another operator wallet and accepts no payment; make a new one.',
        );
      return this.fromPurchase(purchase);
    }
    const { invoice } = state;
    if (!invoice) throw new AppError('not_found', 'No such invoice.');
    const status = invoiceStatus(invoice, now);
    if (status === 'paid')
      throw new AppError('invoice_already_paid', 'This invoice is already paid. Do not pay again.');
    if (status === 'processing')
      throw new AppError('invoice_processing', 'A payment for this invoice is being verified. Do not pay again.');
    if (status === 'cancelled') throw new AppError('invoice_cancelled', 'This invoice was cancelled.');
    if (status === 'expired') throw new AppError('invoice_expired', 'This invoice has expired.');
    // A link issued for another receiving address accepts no new payment: money goes only to the workspace wallet.
    if (state.wallet !== invoice.payTo) {
      throw new AppError(
        'pay_to_mismatch',
        'This payment link was issued for another receiving address and accepts no new payments.',
      );
    }
    return this.fromInvoice(invoice);
  }

  /** Locks the order row: the payments of one order are ordered by it. */
  async lock(trx: Executor, workspaceId: WorkspaceId, ref: OrderRef): Promise<void> {
    const found =
      ref.kind === 'invoice'
        ? await lockInvoice(trx, workspaceId, ref.id)
        : await findPurchase(trx, workspaceId, ref.id, true);
    if (!found) throw new AppError('not_found', `No such ${ref.kind === 'invoice' ? 'invoice' : 'credit purchase'}.`);
  }

  /** Applies a payment step to the locked order; answers the state machine's verdict (persisted when allowed). */
  async apply(
    trx: Executor,
    workspaceId: WorkspaceId,
    ref: OrderRef,
    step: PaymentStep,
    at: Date,
  ): Promise<StepResult> {
    if (ref.kind === 'credit_purchase') {
      const applied = await this.deps.creditPurchases.applyPaymentStep(trx, workspaceId, ref.id, step, at);
      if (!applied) throw new AppError('not_found', 'No such credit purchase.');
      return applied.result;
    }
    const invoice = await lockInvoice(trx, workspaceId, ref.id);
    if (!invoice) throw new AppError('not_found', 'No such invoice.');
    const result = transition(invoice, step, at);
    if (result.ok) await persistTransition(trx, invoice, result, at, this.deps.publicBaseUrl);
    return result;
  }

  private fromInvoice(invoice: Invoice): PayableOrder {
    return {
      ref: { kind: 'invoice', id: invoice.id },
      amount: invoice.amount,
      payTo: invoice.payTo,
      networks: this.deps.networks.filter((network) => invoice.network === null || network.name === invoice.network),
      createdAt: invoice.createdAt,
      expiresAt: invoice.expiresAt,
      linkVersion: invoice.linkVersion,
      // Creation and renewal both set the deadline to the moment plus the window.
      linkIssuedAt: new Date(invoice.expiresAt.getTime() - invoice.expiresIn * 1000),
      description: `Invoice ${formatInvoiceNumber(invoice.number)}`,
    };
  }

  private fromPurchase(purchase: CreditPurchase): PayableOrder {
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
