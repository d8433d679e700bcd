import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { WorkspaceParams } from '../../http/common.schemas.js';
import { errorResponses } from '../../http/error-examples.js';
import { BEARER_SECURITY } from '../../http/openapi-operation.js';
import type { OperationDocs } from '../../http/openapi-examples.js';
import type { Db } from '../../db/database.js';
import { MERCHANT_GUARD_ERRORS } from '../../http/workspace-route.js';
import { INVOICE_EVENT_TYPES, PAYMENT_INTENT_EVENT_TYPES, TRANSFER_EVENT_TYPES } from './change-feed.js';
import { CHANGES_FIELD_CODES, ChangePage, ChangesQuery } from './change-feed.schemas.js';
import { keepRecentEvents } from './recent-events.js';
import { ChangeFeedService } from './change-feed.service.js';
import { changeFeedExamples } from './change-feed.examples.js';

/** What these routes call. */
export interface ChangeFeedRouteDeps {
  readonly db: Db;
  /** Where pages are read first (ChangeFeedDeps.reads). */
  readonly reads: Db;
}

const DESCRIPTION = [
  "The workspace's events in commit order: the catch-up path for missed webhooks. Start with `after=0`, process the events, " +
    'save `nextCursor` after durable processing, and call again with it (at once while `hasMore` is true, later otherwise). ' +
    'An event id seen once is never seen again on the same cursor chain, and no id is skipped.',
  `Event kinds: ${[...INVOICE_EVENT_TYPES, ...PAYMENT_INTENT_EVENT_TYPES, ...TRANSFER_EVENT_TYPES].map((type) => `\`${type}\``).join(', ')}. ` +
    '`invoice.*` events carry `data.invoice`, the invoice as GET /invoices/{id} showed it right after the change. ' +
    '`payment_intent.*` events carry `data.paymentIntent` (as GET /payment-intents/{id}) and `data.invoice` (`id`, `number`, `externalId`).',
  'Events are kept for EVENT_RETENTION_DAYS (default 30). A cursor older than the retained range answers 410 `cursor_expired` with ' +
    '`restartCursor`: reconcile from current state, then continue from `restartCursor`. `after=0` never expires. ' +
    'A malformed cursor, or one this feed never handed out, answers 400 `invalid_cursor`.',
  'See docs/change-feed.md.',
].join('\n\n');

const CHANGES_DOCS: OperationDocs = {
  errors: ['invalid_request', 'invalid_cursor', 'cursor_expired', ...MERCHANT_GUARD_ERRORS],
  examples: changeFeedExamples.changes,
};

export function changeFeedRoutes(services: ChangeFeedRouteDeps): FastifyPluginAsyncTypebox {
  const feed = new ChangeFeedService({ db: services.db, reads: services.reads, recent: keepRecentEvents(services.db) });
  return async (app) => {
    app.get(
      '/changes',
      {
        config: { permission: 'invoices:read', fieldErrorCodes: CHANGES_FIELD_CODES, docs: CHANGES_DOCS },
        schema: {
          tags: ['Changes'],
          summary: 'Read the change feed from a cursor',
          description: DESCRIPTION,
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          querystring: ChangesQuery,
          response: { 200: ChangePage, ...errorResponses(CHANGES_DOCS.errors) },
        },
      },
      async (request, reply) => {
        const page = await feed.page(request.apiKey!.workspaceId, request.query.after, request.query.limit);
        // JSON in the ChangePage shape, as UTF-8 bytes: Fastify sends a Buffer or a stream as it is, and
        // the type provider, which knows only the object, is told so. The pieces go to the socket as
        // they are, never copied into one buffer.
        const { pieces, byteLength } = page;
        const body = pieces.length === 1 ? pieces[0]! : Readable.from(pieces, { objectMode: false });
        return reply
          .type('application/json; charset=utf-8')
          .header('content-length', byteLength)
          .send(body as unknown as Static<typeof ChangePage>);
      },
    );
  };
}
