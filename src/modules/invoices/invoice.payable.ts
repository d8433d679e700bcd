import type { Network } from '../../chain/networks.js';
import type { Db, Executor } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { LockedRows } from '../../db/locked-rows.js';
import type { InvoiceBook, InvoiceLabel, PayableOrder, PaymentStep, StepResult } from '../payment-engine/index.js';
import type { LateWrites, WorkspaceWrites } from '../events/index.js';
import { findWorkspace } from '../workspaces/index.js';
import { effectiveStatus, formatInvoiceNumber, transition, type Invoice, type InvoiceId } from './invoice.js';
import { findInvoice, lockInvoice, lockInvoices } from './invoice.repo.js';
import { persistTransition } from './invoice.service.js';
import type { InvoicePresentation } from './invoice.present.js';

/** What decides whether an invoice can take a payment: its row and the workspace's wallet now. */
export interface InvoicePayState {
  readonly invoice: Invoice | undefined;
  readonly wallet: string | undefined;
}

export interface InvoiceOrderBookDeps {
  readonly db: Db;
  readonly networks: readonly Network[];
  /** Invoice events show the invoice as GET /invoices/{id} does. */
  readonly presentation: InvoicePresentation;
  readonly receipts: ReceiptBook;
}

/** Numbers an invoice's receipt as it is paid and voids it when the chain takes the payment back. */
export interface ReceiptBook {
  /** Numbered after the events (WorkspaceWrites.then), the receipts of one transaction together. */
  readonly issues: LateWrites<{ invoiceId: string; at: Date }>;
  void(trx: Executor, workspaceId: WorkspaceId, invoiceId: string, at: Date): Promise<void>;
}

/**
 * Invoices as the payment engine sees them: what may pay one, and its state machine's payment steps,
 * persisted with their event and credit movements inside the engine's transaction.
 */
export class InvoiceOrderBook implements InvoiceBook<InvoicePayState> {
  constructor(private readonly deps: InvoiceOrderBookDeps) {}

  async find(db: Executor, workspaceId: WorkspaceId, id: string): Promise<PayableOrder | undefined> {
    const invoice = await findInvoice(db, workspaceId, id as InvoiceId);
    return invoice && this.payableOf(invoice);
  }

  async read(workspaceId: WorkspaceId, id: string): Promise<InvoicePayState> {
    const [invoice, workspace] = await Promise.all([
      findInvoice(this.deps.db, workspaceId, id as InvoiceId),
      findWorkspace(this.deps.db, workspaceId),
    ]);
    return { invoice, wallet: workspace?.wallet_address };
  }

  judge({ invoice, wallet }: InvoicePayState, now: Date): PayableOrder {
    if (!invoice) throw new AppError('not_found', 'No such invoice.');
    const status = effectiveStatus(invoice, now);
    if (status === 'paid')
      throw new AppError('invoice_already_paid', 'This invoice is already paid. Do not pay again.');
    if (status === 'processing')
      throw new AppError('invoice_processing', 'A payment for this invoice is being verified. Do not pay again.');
    if (status === 'cancelled') throw new AppError('invoice_cancelled', 'This invoice was cancelled.');
    if (status === 'expired') throw new AppError('invoice_expired', 'This invoice has expired.');
    // A link issued for another receiving address accepts no new payment: money goes only to the workspace wallet.
    if (wallet !== invoice.payTo) {
      throw new AppError(
        'pay_to_mismatch',
        'This payment link was issued for another receiving address and accepts no new payments.',
      );
    }
    return this.payableOf(invoice);
  }

  async lock(trx: Executor, workspaceId: WorkspaceId, id: string): Promise<boolean> {
    return (await lockInvoice(trx, workspaceId, id as InvoiceId)) !== undefined;
  }

  async lockAll(trx: Executor, workspaceId: WorkspaceId, ids: readonly string[], into: LockedRows): Promise<void> {
    for (const invoice of await lockInvoices(trx, workspaceId, ids as readonly InvoiceId[]))
      into.keep('invoice', invoice.id, invoice);
  }

  async apply(
    trx: Executor,
    workspaceId: WorkspaceId,
    id: string,
    step: PaymentStep,
    at: Date,
    writes: WorkspaceWrites,
    locked?: LockedRows,
  ): Promise<StepResult | undefined> {
    const invoice = locked?.take<Invoice>('invoice', id) ?? (await lockInvoice(trx, workspaceId, id as InvoiceId));
    if (!invoice) return undefined;
    const result = transition(invoice, step, at);
    if (!result.ok) return result;
    const updated = await persistTransition(trx, invoice, result, at, this.deps.presentation, writes);
    // Numbered after the events, as the workspace's other counters: held for the last statements only.
    if (result.changes.status === 'paid') writes.then(this.deps.receipts.issues, workspaceId, { invoiceId: id, at });
    return { ok: true, label: labelOf(updated) };
  }

  async revertPayment(
    trx: Executor,
    workspaceId: WorkspaceId,
    id: string,
    at: Date,
    writes: WorkspaceWrites,
  ): Promise<void> {
    const invoice = await lockInvoice(trx, workspaceId, id as InvoiceId);
    const result = invoice && transition(invoice, { type: 'payment_reverted' }, at);
    if (!result?.ok) return;
    await persistTransition(trx, invoice!, result, at, this.deps.presentation, writes);
    await this.deps.receipts.void(trx, workspaceId, id, at);
  }

  async label(db: Executor, workspaceId: WorkspaceId, id: string): Promise<InvoiceLabel | undefined> {
    const invoice = await findInvoice(db, workspaceId, id as InvoiceId);
    return invoice && labelOf(invoice);
  }

  private payableOf(invoice: Invoice): PayableOrder {
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
}

function labelOf(invoice: Invoice): InvoiceLabel {
  return {
    number: formatInvoiceNumber(invoice.number),
    externalId: invoice.externalId,
    description: invoice.description,
    paidAt: invoice.paidAt,
    paid: invoice.status === 'paid',
  };
}
