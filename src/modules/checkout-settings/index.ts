/** What other modules may use of checkout-settings; everything else is the module's own. */
export { MAX_RETURN_ORIGINS } from './checkout-settings.js';
export { CheckoutSettingsService } from './checkout-settings.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { CheckoutSettingsView } from './checkout-settings.schemas.js';
export { checkoutSettingsModule } from './checkout-settings.module.js';
