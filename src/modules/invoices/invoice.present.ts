import { formatUsdc } from '../../shared/money.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { InvoiceEventData, NewEvent } from '../events/index.js';
import {
  formatInvoiceNumber,
  openedInvoice,
  type Invoice,
  type InvoiceAutomation,
  type InvoiceDraft,
  type InvoiceEventType,
} from './invoice.js';

/** The invoice as the API shows it. Links are built from PUBLIC_BASE_URL (docs/invoices.md). */
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
    description: invoice.description,
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
    automationId: invoice.automation?.id ?? null,
    occurrence: invoice.automation?.occurrence ?? null,
  };
}

export type InvoiceEventKind = 'invoice.created' | InvoiceEventType;

/** An invoice event: its data is the invoice as GET /invoices/{id} shows it right after the change. */
export function invoiceEvent(type: InvoiceEventKind, invoice: Invoice, baseUrl: URL, at: Date): NewEvent {
  return { type, invoiceId: invoice.id, data: { invoice: presentInvoice(invoice, baseUrl) }, at };
}

/**
 * The data of `invoice.created` for an invoice about to be created, rendered before the database
 * assigns its number and copies the workspace wallet into it: `number` and `payTo` are placeholders,
 * left out of the item sent (createItem) and added by create_invoice_group once it has decided them
 * (SQL invoice_number_text matches formatInvoiceNumber), so creation stays one round trip and the API
 * shape has one definition.
 */
export function createdEventData(
  workspaceId: WorkspaceId,
  draft: InvoiceDraft,
  baseUrl: URL,
  automation: InvoiceAutomation | null = null,
): InvoiceEventData {
  return { invoice: presentInvoice(openedInvoice(workspaceId, draft, { number: 0n, payTo: '' }, automation), baseUrl) };
}
