import { apiKeyPortalRoutes } from '../modules/api-keys/index.js';
import { billingRoutes } from '../modules/billing/index.js';
import { checkoutSettingsPortalRoutes } from '../modules/checkout-settings/index.js';
import { checkoutSettingsRoutes } from '../modules/checkout-settings/index.js';
import { creditPurchaseRoutes } from '../modules/credit-purchases/index.js';
import { dashboardPortalRoutes } from '../modules/dashboard/index.js';
import { healthRoutes } from '../modules/health/index.js';
import { invoiceSearchRoutes } from '../modules/invoice-search/index.js';
import { automationRoutes } from '../modules/automations/index.js';
import { invoiceRoutes } from '../modules/invoices/index.js';
import { purchasePaymentRoutes } from '../modules/checkout/index.js';
import { invoiceChangePortalRoutes, receiptRoutes } from '../modules/payment-views/index.js';
import { statementRoutes } from '../modules/statements/index.js';
import { timelineRoutes } from '../modules/timeline/index.js';
import { webhookRoutes } from '../modules/webhooks/index.js';
import { workspacePortalRoutes } from '../modules/workspaces/index.js';
import type { Services } from './services.js';
import type { SharedRoute, WorkspaceRoute } from '../http/workspace-route.js';

export interface WorkspaceRouteTable {
  /** Served to both audiences: in the merchant API scope and in the portal's workspace scope. */
  readonly shared: readonly SharedRoute[];
  /** Served in the portal's workspace scope only. */
  readonly portalOnly: readonly WorkspaceRoute[];
}

/**
 * Every route on one workspace that both audiences share or that the portal alone has. app.ts registers
 * exactly these into the guarded scopes, and the portal security test walks the same table.
 * Merchant-only routes (batches, payment intents, PUT /workspace, the change feed) stay plugins of the
 * merchant API scope.
 */
export function workspaceRouteTable(services: Services): WorkspaceRouteTable {
  return {
    shared: [
      ...billingRoutes(services),
      ...statementRoutes(services),
      ...creditPurchaseRoutes(services),
      ...purchasePaymentRoutes(services),
      ...invoiceRoutes(services),
      ...automationRoutes(services),
      ...receiptRoutes(services),
      ...checkoutSettingsRoutes(services),
      ...webhookRoutes(services),
      ...invoiceSearchRoutes(services),
      ...timelineRoutes(services),
      ...healthRoutes(services),
    ],
    portalOnly: [
      ...workspacePortalRoutes(services),
      ...apiKeyPortalRoutes(services),
      ...checkoutSettingsPortalRoutes(services),
      ...dashboardPortalRoutes(services),
      ...invoiceChangePortalRoutes(services),
    ],
  };
}
