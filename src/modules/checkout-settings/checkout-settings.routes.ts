import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { WorkspaceParams, errors } from '../../http/common.schemas.js';
import { BEARER_SECURITY } from '../../http/merchant-api.js';
import type { Services } from '../../http/services.js';
import { MAX_RETURN_ORIGINS } from './checkout-settings.js';

export const CheckoutSettingsBody = Type.Object(
  {
    origins: Type.Array(Type.String({ maxLength: 300 }), {
      maxItems: MAX_RETURN_ORIGINS,
      description: 'Exact https origins on port 443, e.g. "https://shop.example.com". No wildcards, credentials, paths or other ports.',
    }),
  },
  { additionalProperties: false },
);
export const CheckoutSettingsView = Type.Object({ origins: Type.Array(Type.String()) });

export function checkoutSettingsRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.put(
      '/checkout-settings',
      {
        config: { permission: 'settings:write', fieldErrorCodes: { origins: 'invalid_origin' } },
        schema: {
          tags: ['Checkout settings'],
          summary: 'Set the allowed checkout return origins',
          description: 'successUrl and cancelUrl of new invoices must be on one of these origins. Removing an origin affects only invoices created afterwards.',
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          body: CheckoutSettingsBody,
          response: { 200: CheckoutSettingsView, ...errors(400, 401, 403, 429) },
        },
      },
      async (request) => services.checkoutSettings.replace(request.apiKey!.workspaceId, request.body.origins),
    );
  };
}
