import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import { ownedWorkspace } from '../workspaces/owned-workspace.js';
import { PortalWorkspaceParams } from '../workspaces/workspace.schemas.js';
import { SEARCH_FIELD_CODES, SearchPage, SearchQuery } from './search.schemas.js';

/** The portal's search box: GET /invoice-search under the wallet session, same rules and pages. */
export function invoiceSearchPortalRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = ownedWorkspace(services);
  return async (app) => {
    app.get(
      '/w/:workspaceId/invoice-search',
      {
        config: { fieldErrorCodes: SEARCH_FIELD_CODES },
        schema: {
          tags: ['Portal'],
          summary: 'Find invoices by number, order reference, link or transaction',
          description: 'As GET /invoice-search: exact matches only, newest first.',
          params: PortalWorkspaceParams,
          querystring: SearchQuery,
          response: { 200: SearchPage, ...errors(400, 401, 404) },
        },
      },
      async (request) => services.invoiceSearch.search(await owned(request, request.params.workspaceId), request.query),
    );
  };
}
