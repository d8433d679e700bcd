import { formatUsdc } from '../../shared/money.js';
import { formatInvoiceNumber } from '../invoices/index.js';
import type { ExportedInvoice } from './invoice-export.repo.js';

/**
 * The columns of `GET /invoices/export`, in order: a stable contract for spreadsheets and accounting
 * imports (docs/invoices.md lists them). New columns only ever go at the end.
 */
export const EXPORT_COLUMNS: readonly [name: string, value: (row: ExportedInvoice) => string | null][] = [
  ['number', ({ invoice }) => formatInvoiceNumber(invoice.number)],
  ['id', ({ invoice }) => invoice.id],
  ['status', ({ invoice }) => invoice.status],
  ['amount', ({ invoice }) => formatUsdc(invoice.amount)],
  ['currency', ({ invoice }) => invoice.currency],
  ['network', ({ invoice }) => invoice.network],
  ['created_at', ({ invoice }) => invoice.createdAt.toISOString()],
  ['expires_at', ({ invoice }) => invoice.expiresAt.toISOString()],
  ['paid_at', ({ invoice }) => invoice.paidAt?.toISOString() ?? null],
  ['payer', ({ payer }) => payer],
  ['transaction_hash', ({ transactionHash }) => transactionHash],
  ['pay_to', ({ invoice }) => invoice.payTo],
  ['external_id', ({ invoice }) => invoice.externalId],
  ['automation_id', ({ invoice }) => invoice.automation?.id ?? null],
  ['description', ({ invoice }) => invoice.description],
];

/** RFC 4180: CRLF line ends; a field with a comma, a quote or a line break is quoted, quotes doubled. */
export function csvLine(fields: readonly (string | null)[]): string {
  return `${fields.map((field) => (field === null ? '' : csvField(field))).join(',')}\r\n`;
}

export function csvRow(row: ExportedInvoice): string {
  return csvLine(EXPORT_COLUMNS.map(([, value]) => value(row)));
}

export const CSV_HEADER = csvLine(EXPORT_COLUMNS.map(([name]) => name));

function csvField(value: string): string {
  // A leading =, +, - or @ would be a formula to a spreadsheet: external ids and descriptions are merchants' text.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
