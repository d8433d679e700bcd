import type { Config } from '../../config/config.js';
import { formatUsdc } from '../../shared/money.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { InvoiceEventData, NewEvent } from '../events/index.js';
import {
  formatInvoiceNumber,
  isArchived,
  openedInvoice,
  type Invoice,
  type InvoiceAutomation,
  type InvoiceDraft,
  type InvoiceEventType,
} from './invoice.js';

/** What showing an invoice takes: its links' origin (docs/invoices.md) and when it is archived. */
export type InvoicePresentation = Pick<Config, 'publicBaseUrl' | 'invoiceRetentionDays'>;

/** The invoice as the API shows it at `at` (an invoice event: the event's time). */
export function presentInvoice(invoice: Invoice, presentation: InvoicePresentation, at: Date) {
  const workspaceBase = `${presentation.publicBaseUrl.origin}/w/${invoice.workspaceId}`;
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
    archived: isArchived(invoice, at, presentation.invoiceRetentionDays),
  };
}

export type InvoiceEventKind = 'invoice.created' | InvoiceEventType;

/** An invoice event: its data is the invoice as GET /invoices/{id} shows it right after the change. */
export function invoiceEvent(type: InvoiceEventKind, invoice: Invoice, view: InvoicePresentation, at: Date): NewEvent {
  return { type, invoiceId: invoice.id, data: { invoice: presentInvoice(invoice, view, at) }, at };
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
  presentation: InvoicePresentation,
  automation: InvoiceAutomation | null = null,
): InvoiceEventData {
  const invoice = openedInvoice(workspaceId, draft, { number: 0n, payTo: '' }, automation);
  return { invoice: presentInvoice(invoice, presentation, draft.now) };
}

/** `createdEventData`'s event as create_invoice_group wrote it, with the number and wallet it decided. */
export function createdEvent(data: InvoiceEventData, invoice: Invoice, at: Date): NewEvent {
  const decided = { number: formatInvoiceNumber(invoice.number), payTo: invoice.payTo };
  return { type: 'invoice.created', invoiceId: invoice.id, data: { invoice: { ...data.invoice, ...decided } }, at };
}
