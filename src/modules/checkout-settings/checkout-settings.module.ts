import type { Db } from '../../db/database.js';
import { checkoutSettingsPortalRoutes } from './checkout-settings.portal-routes.js';
import { checkoutSettingsRoutes } from './checkout-settings.routes.js';
import { CheckoutSettingsService } from './checkout-settings.service.js';

/** Where checkout may send buyers back to. */
export function checkoutSettingsModule(deps: { readonly db: Db }) {
  const checkoutSettings = new CheckoutSettingsService({ db: deps.db });
  return {
    checkoutSettings,
    routes: checkoutSettingsRoutes({ checkoutSettings }),
    portalRoutes: checkoutSettingsPortalRoutes({ checkoutSettings }),
  };
}
