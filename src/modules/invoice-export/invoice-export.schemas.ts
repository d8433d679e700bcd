import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { InvoiceListQuery } from '../invoices/index.js';

export const InvoiceExportQuery = Type.Object({
  status: InvoiceListQuery.properties.status,
  from: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'Only invoices created at or after this instant (RFC 3339). With `to`, a half-open range: consecutive months neither overlap nor leave gaps.',
    }),
  ),
  to: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only invoices created before this instant (RFC 3339).' }),
  ),
});

/** A string in the API document; the handler sends it as a stream, which Fastify passes through unserialized. */
export const InvoiceCsv = Type.Unsafe<Readable>({
  type: 'string',
  description:
    'text/csv; charset=utf-8 (RFC 4180: CRLF line ends, quoted where needed), a header line then one invoice a line, oldest first. ' +
    'Columns: number, id, status, amount (decimal USDC), currency, network, created_at, expires_at, paid_at, payer, ' +
    'transaction_hash, pay_to, external_id, automation_id, description (quoted when it holds a line break). Empty where there is no value.',
});
