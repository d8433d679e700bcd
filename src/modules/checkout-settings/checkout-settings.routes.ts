import { WorkspaceParams } from '../../http/common.schemas.js';
import type { CheckoutSettingsService } from './checkout-settings.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { CheckoutSettingsBody, CheckoutSettingsView } from './checkout-settings.schemas.js';
import { checkoutSettingsExamples } from './checkout-settings.examples.js';

/** What these routes call. */
export interface CheckoutSettingsRouteDeps {
  readonly checkoutSettings: CheckoutSettingsService;
}

/** PUT /checkout-settings: the API and the portal's settings tab. */
export function checkoutSettingsRoutes(services: CheckoutSettingsRouteDeps): SharedRoute[] {
  return [
    sharedRoute({
      method: 'PUT',
      url: '/checkout-settings',
      permission: 'settings:write',
      fieldErrorCodes: { origins: 'invalid_origin' },
      schema: {
        tags: ['Checkout settings'],
        summary: 'Set the allowed checkout return origins',
        description:
          'successUrl and cancelUrl of new invoices must be on one of these origins. Removing an origin affects only invoices created afterwards.',
        params: WorkspaceParams,
        body: CheckoutSettingsBody,
        response: { 200: CheckoutSettingsView },
      },
      errors: ['invalid_request', 'unknown_field', 'invalid_json', 'invalid_origin'],
      examples: checkoutSettingsExamples.update,
      portal: {
        description:
          'As PUT /checkout-settings: exact https origins on port 443, at most 10; affects invoices created afterwards.',
      },
      example: { body: { origins: ['https://shop.example.com'] } },
      handler: async (request) =>
        services.checkoutSettings.replace(request.principal!.workspaceId, request.body.origins),
    }),
  ];
}
