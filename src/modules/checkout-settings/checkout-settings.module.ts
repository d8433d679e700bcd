import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import { checkoutSettingsPortalRoutes } from './checkout-settings.portal-routes.js';
import { checkoutSettingsRoutes } from './checkout-settings.routes.js';
import { CheckoutSettingsService } from './checkout-settings.service.js';

/** Where checkout may send buyers back to. */
export function checkoutSettingsModule(deps: {
  readonly db: Db;
  readonly config: Pick<Config, 'webhookAllowPrivate'>;
}) {
  const checkoutSettings = new CheckoutSettingsService({ db: deps.db, loopbackHttp: deps.config.webhookAllowPrivate });
  return {
    checkoutSettings,
    routes: checkoutSettingsRoutes({ checkoutSettings }),
    portalRoutes: checkoutSettingsPortalRoutes({ checkoutSettings }),
  };
}
