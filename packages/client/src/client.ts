import createFetchClient, { type Client } from 'openapi-fetch';
import { readChanges, type ChangeEvent, type ChangesOptions } from './changes.js';
import type { paths } from './generated/api.js';
import { idempotencyKeys } from './idempotency.js';
import {
  exportInvoices,
  listInvoices,
  type Invoice,
  type InvoiceExportQuery,
  type InvoiceListQuery,
} from './invoices.js';
import { retryingFetch, retryPolicy, type RetryPolicy, type Transport } from './retry.js';

export interface ClientOptions {
  /** Where the service is, e.g. `https://invoices.example.com` (PUBLIC_BASE_URL). */
  readonly baseUrl: string;
  /** The workspace the key belongs to (`ws_…`). */
  readonly workspaceId: string;
  /** The secret of an API key of that workspace. Server side only. */
  readonly apiKey: string;
  /** Retries of network errors and 429/502/503/504; `false` for none. Default: 4 attempts, 500 ms doubling up to 5 s. */
  readonly retry?: Partial<RetryPolicy> | false;
  /** What sends each attempt; default the global fetch. */
  readonly fetch?: Transport;
}

/** The typed openapi-fetch client of the merchant API (`GET`, `POST`, … on `{API_BASE}` paths) and helpers that page. */
export interface InvoiceClient extends Client<paths> {
  /** The change feed's events in order, following `nextCursor` (see ChangesOptions). */
  changes(options?: ChangesOptions): AsyncGenerator<ChangeEvent, void>;
  /** Every invoice that matches `query`, following the pages of GET /invoices. */
  listInvoices(query?: InvoiceListQuery, options?: { signal?: AbortSignal }): AsyncGenerator<Invoice, void>;
  /** GET /invoices/export: the CSV as a stream. */
  exportInvoices(query?: InvoiceExportQuery, options?: { signal?: AbortSignal }): Promise<ReadableStream<Uint8Array>>;
}

/**
 * A client of one workspace's merchant API: paths as the spec writes them from `{API_BASE}`
 * (`{baseUrl}/w/{workspaceId}/v1`), the key sent as `Authorization: Bearer`, an Idempotency-Key made for
 * every create that takes one and kept across retries.
 */
export function createClient(options: ClientOptions): InvoiceClient {
  const transport = options.fetch ?? ((request: Request) => fetch(request));
  const retry = options.retry === false ? undefined : retryPolicy(options.retry);
  const api = createFetchClient<paths>({
    baseUrl: `${options.baseUrl.replace(/\/+$/, '')}/w/${encodeURIComponent(options.workspaceId)}/v1`,
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retry ? retryingFetch(transport, retry) : transport,
    // Answers are the service's own; a redirect would take the key elsewhere.
    redirect: 'error',
  });
  api.use(idempotencyKeys);
  return Object.assign(api, {
    changes: (changesOptions?: ChangesOptions) => readChanges(api, changesOptions),
    listInvoices: (query?: InvoiceListQuery, listOptions?: { signal?: AbortSignal }) =>
      listInvoices(api, query, listOptions),
    exportInvoices: (query?: InvoiceExportQuery, exportOptions?: { signal?: AbortSignal }) =>
      exportInvoices(api, query, exportOptions),
  });
}
