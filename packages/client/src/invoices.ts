import type { Client } from 'openapi-fetch';
import { ApiError } from './errors.js';
import type { paths } from './generated/api.js';

export type Invoice = paths['/invoices/{invoiceId}']['get']['responses'][200]['content']['application/json'];
/** Filters of GET /invoices; the client follows the pages itself. */
export type InvoiceListQuery = Omit<NonNullable<paths['/invoices']['get']['parameters']['query']>, 'cursor'>;
export type InvoiceExportQuery = NonNullable<paths['/invoices/export']['get']['parameters']['query']>;

/** Every invoice that matches `query`, page after page (newest first, as GET /invoices lists them). */
export async function* listInvoices(
  api: Client<paths>,
  query: InvoiceListQuery = {},
  options: { signal?: AbortSignal } = {},
): AsyncGenerator<Invoice, void> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await api.GET('/invoices', {
      params: { query: { ...query, ...(cursor !== undefined && { cursor }) } },
      ...(options.signal && { signal: options.signal }),
    });
    if (data === undefined) throw new ApiError(response, error);
    yield* data.invoices;
    cursor = data.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/**
 * GET /invoices/export: the CSV (RFC 4180, UTF-8) as a stream, which the service writes as it reads, so
 * an export of any size passes through in flat memory, e.g. `Readable.fromWeb(stream).pipe(file)`.
 */
export async function exportInvoices(
  api: Client<paths>,
  query: InvoiceExportQuery = {},
  options: { signal?: AbortSignal } = {},
): Promise<ReadableStream<Uint8Array>> {
  const { data, error, response } = await api.GET('/invoices/export', {
    params: { query },
    parseAs: 'stream',
    ...(options.signal && { signal: options.signal }),
  });
  if (error !== undefined || !data) throw new ApiError(response, error);
  return data;
}
