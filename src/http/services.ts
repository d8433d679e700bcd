import type { Config } from '../config/config.js';
import type { Db } from '../db/database.js';
import type { ApiKeyService } from '../modules/api-keys/api-key.service.js';
import type { AuthService } from '../modules/auth/auth.service.js';
import type { BillingService } from '../modules/billing/billing.service.js';
import type { CheckoutSettingsService } from '../modules/checkout-settings/checkout-settings.service.js';
import type { HealthService } from '../modules/health/health.service.js';
import type { InvoiceBatchService } from '../modules/invoice-batches/batch.service.js';
import type { InvoiceSearchService } from '../modules/invoice-search/search.service.js';
import type { InvoiceService } from '../modules/invoices/invoice.service.js';
import type { CheckoutService } from '../modules/payments/checkout.service.js';
import type { PaymentService } from '../modules/payments/payment.service.js';
import type { TimelineService } from '../modules/timeline/timeline.service.js';
import type { WebhookDeliverer } from '../modules/webhooks/webhook.delivery.js';
import type { WebhookService } from '../modules/webhooks/webhook.service.js';
import type { WorkspaceService } from '../modules/workspaces/workspace.service.js';
import type { Clock } from '../shared/clock.js';
import type { DemoWallet } from '../web/demo-wallet/demo-wallet.js';

/** Everything the HTTP layer calls. Built by src/main/services.ts; tests build it the same way. */
export interface Services {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly auth: AuthService;
  readonly apiKeys: ApiKeyService;
  readonly workspaces: WorkspaceService;
  readonly billing: BillingService;
  readonly invoices: InvoiceService;
  readonly invoiceBatches: InvoiceBatchService;
  readonly invoiceSearch: InvoiceSearchService;
  /** Only in the local demo: the built-in browser wallet's accounts. */
  readonly demoWallet?: DemoWallet;
  readonly checkoutSettings: CheckoutSettingsService;
  readonly payments: PaymentService;
  readonly checkout: CheckoutService;
  readonly webhooks: WebhookService;
  /** The worker's side of webhooks: one attempt per job run. */
  readonly webhookDeliverer: WebhookDeliverer;
  readonly timeline: TimelineService;
  readonly health: HealthService;
}
