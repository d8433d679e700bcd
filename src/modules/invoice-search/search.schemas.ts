import { Type } from '@sinclair/typebox';
import { InvoiceView } from '../invoices/index.js';
import { DEFAULT_SEARCH_LIMIT, MAX_QUERY_LENGTH, MAX_SEARCH_LIMIT } from './search.js';

export const SearchQuery = Type.Object({
  q: Type.String({
    minLength: 1,
    maxLength: MAX_QUERY_LENGTH,
    description:
      'What to look for, matched exactly (leading and trailing spaces ignored): an invoice number (`INV-000042`, any letter case, ' +
      'zero padding optional), an order reference (`externalId`), a checkout URL or x402 `url` of this workspace, an invoice id (`inv_…`) ' +
      'or a transaction hash (`0x` + 64 hex digits, any case).',
  }),
  cursor: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'Omit for the first page; then the `nextCursor` of the previous page. Opaque.',
    }),
  ),
  limit: Type.Integer({
    minimum: 1,
    maximum: MAX_SEARCH_LIMIT,
    default: DEFAULT_SEARCH_LIMIT,
    description: `Invoices per page, 1–${MAX_SEARCH_LIMIT}.`,
  }),
});

/** Schema failures of these query fields answer with the field's own code. */
export const SEARCH_FIELD_CODES = { cursor: 'invalid_cursor' } as const;

export const SearchPage = Type.Object({
  invoices: Type.Array(InvoiceView, {
    description: 'Matching invoices, newest (highest number) first, each as GET /invoices/{id} shows it.',
  }),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description:
      'Pass as `cursor` to get the next page; null when there is nothing more. Follow it even if a page comes back empty.',
  }),
});
