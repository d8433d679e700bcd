import { formatUsdc } from '../../shared/money.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { formatInvoiceNumber, type Invoice, type InvoiceId, type InvoiceStatus } from '../invoices/index.js';

/**
 * Where an archived invoice's snapshot is read: the invoice as GET /invoices/{id} reads it, and the
 * receipt of the payment that paid it (wired by the composition root, so this module knows neither).
 */
export interface SnapshotSources {
  invoice(workspaceId: WorkspaceId, invoiceId: InvoiceId): Promise<Invoice>;
  receipt(
    workspaceId: WorkspaceId,
    invoiceId: InvoiceId,
  ): Promise<{ readonly receiptNumber: string; readonly payment: { readonly id: string } }>;
}

/** What an invoice still holds once retention removed its records: its own facts, kept for good. */
export interface TimelineSnapshot {
  readonly number: string;
  readonly amount: string;
  readonly currency: 'USDC';
  readonly description: string | null;
  readonly externalId: string | null;
  readonly status: InvoiceStatus;
  readonly network: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly paidAt: string | null;
  readonly expiredAt: string | null;
  readonly cancelledAt: string | null;
  readonly paymentIntentId: string | null;
  readonly receiptNumber: string | null;
}

/**
 * The snapshot of an archived invoice. Only a paid invoice has a receipt; its payment is the one the
 * receipt names, so the two ids always agree.
 */
export async function readSnapshot(
  sources: SnapshotSources,
  workspaceId: WorkspaceId,
  invoiceId: InvoiceId,
): Promise<TimelineSnapshot> {
  const invoice = await sources.invoice(workspaceId, invoiceId);
  const receipt = invoice.status === 'paid' ? await sources.receipt(workspaceId, invoiceId) : undefined;
  return {
    number: formatInvoiceNumber(invoice.number),
    amount: formatUsdc(invoice.amount),
    currency: invoice.currency,
    description: invoice.description,
    externalId: invoice.externalId,
    status: invoice.status,
    network: invoice.network,
    createdAt: invoice.createdAt.toISOString(),
    expiresAt: invoice.expiresAt.toISOString(),
    paidAt: invoice.paidAt?.toISOString() ?? null,
    expiredAt: invoice.expiredAt?.toISOString() ?? null,
    cancelledAt: invoice.cancelledAt?.toISOString() ?? null,
    paymentIntentId: receipt?.payment.id ?? null,
    receiptNumber: receipt?.receiptNumber ?? null,
  };
}
