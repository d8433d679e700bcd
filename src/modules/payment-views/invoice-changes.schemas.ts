import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';

/** The `data` of an `invoice` event: which invoice changed. Read it again for what it is now. */
export const InvoiceChange = Type.Object({
  id: Type.String({ description: 'Invoice id (`inv_…`).' }),
});

/** A string in the API document; the handler sends a stream, which Fastify passes through unserialized. */
export const InvoiceChangeStream = Type.Unsafe<Readable>({
  type: 'string',
  description:
    'text/event-stream (server-sent events): a `retry:` line, then an `event: invoice` whose `data` is `{"id": "inv_…"}` after each ' +
    'committed change of an invoice of the workspace (status, deadline, link version), and an `event: invoices` whose `data` is `{}` ' +
    'when more changed at once than are worth naming, or any may have: read again whatever is shown. Changes within a tenth of a ' +
    'second go out together, each invoice once. A comment line (`: heartbeat`) every 15 seconds.',
});
