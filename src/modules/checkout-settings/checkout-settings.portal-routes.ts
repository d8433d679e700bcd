import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import { ownedWorkspace } from '../workspaces/owned-workspace.js';
import { PortalWorkspaceParams } from '../workspaces/workspace.schemas.js';
import { CheckoutSettingsBody, CheckoutSettingsView } from './checkout-settings.routes.js';

/** Checkout return origins in the portal: read them, and PUT /checkout-settings under the wallet session. */
export function checkoutSettingsPortalRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = ownedWorkspace(services);
  return async (app) => {
    app.get(
      '/w/:workspaceId/checkout-settings',
      {
        schema: {
          tags: ['Portal'],
          summary: 'The allowed checkout return origins',
          params: PortalWorkspaceParams,
          response: { 200: CheckoutSettingsView, ...errors(401, 404) },
        },
      },
      async (request) => services.checkoutSettings.get(await owned(request, request.params.workspaceId)),
    );

    app.put(
      '/w/:workspaceId/checkout-settings',
      {
        config: { fieldErrorCodes: { origins: 'invalid_origin' } },
        schema: {
          tags: ['Portal'],
          summary: 'Set the allowed checkout return origins',
          description: 'As PUT /checkout-settings: exact https origins on port 443, at most 10; affects invoices created afterwards.',
          params: PortalWorkspaceParams,
          body: CheckoutSettingsBody,
          response: { 200: CheckoutSettingsView, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => services.checkoutSettings.replace(await owned(request, request.params.workspaceId), request.body.origins),
    );
  };
}
