import { WorkspaceParams } from '../../http/common.schemas.js';
import type { CheckoutSettingsService } from './checkout-settings.service.js';
import { portalRoute, type WorkspaceRoute } from '../../http/workspace-route.js';
import { CheckoutSettingsView } from './checkout-settings.schemas.js';
import { checkoutSettingsExamples } from './checkout-settings.examples.js';

/** What these routes call. */
export interface CheckoutSettingsPortalRouteDeps {
  readonly checkoutSettings: CheckoutSettingsService;
}

/** The portal's settings form shows the current origins; the API only sets them. */
export function checkoutSettingsPortalRoutes(services: CheckoutSettingsPortalRouteDeps): WorkspaceRoute[] {
  return [
    portalRoute({
      method: 'GET',
      url: '/checkout-settings',
      schema: {
        summary: 'The allowed checkout return origins',
        params: WorkspaceParams,
        response: { 200: CheckoutSettingsView },
      },
      errors: [],
      examples: checkoutSettingsExamples.read,
      handler: async (request) => services.checkoutSettings.get(request.principal!.workspaceId),
    }),
  ];
}
