import { formatUsdc } from '../../shared/money.js';
import type { NewEvent } from '../events/index.js';
import { formatInvoiceNumber, type Invoice, type InvoiceEventType } from './invoice.js';

/** The invoice as the API shows it. Links are built from PUBLIC_BASE_URL (DESIGN.md §4). */
export function presentInvoice(invoice: Invoice, baseUrl: URL) {
  const workspaceBase = `${baseUrl.origin}/w/${invoice.workspaceId}`;
  return {
    id: invoice.id,
    number: formatInvoiceNumber(invoice.number),
    status: invoice.status,
    amount: formatUsdc(invoice.amount),
    currency: invoice.currency,
    network: invoice.network,
    expiresIn: invoice.expiresIn,
    expiresAt: invoice.expiresAt.toISOString(),
    linkVersion: invoice.linkVersion,
    externalId: invoice.externalId,
    successUrl: invoice.successUrl,
    cancelUrl: invoice.cancelUrl,
    payTo: invoice.payTo,
    url: `${workspaceBase}/x402/${invoice.id}`,
    checkoutUrl: `${workspaceBase}/i/${invoice.id}`,
    createdAt: invoice.createdAt.toISOString(),
    updatedAt: invoice.updatedAt.toISOString(),
    paidAt: invoice.paidAt?.toISOString() ?? null,
    expiredAt: invoice.expiredAt?.toISOString() ?? null,
    cancelledAt: invoice.cancelledAt?.toISOString() ?? null,
  };
}

export type InvoiceEventKind = 'invoice.created' | InvoiceEventType;

/** An invoice event: its data is the invoice as GET /invoices/{id} shows it right after the change. */
export function invoiceEvent(type: InvoiceEventKind, invoice: Invoice, baseUrl: URL, at: Date): NewEvent {
  return { type, invoiceId: invoice.id, data: { invoice: presentInvoice(invoice, baseUrl) }, at };
}
