import type { Config } from '../config/config.js';
import type { Db } from '../db/database.js';
import type { ApiKeyService } from '../modules/api-keys/index.js';
import type { AuthService } from '../modules/auth/index.js';
import type { AutomationService } from '../modules/automations/index.js';
import type { BillingService } from '../modules/billing/index.js';
import type { CheckoutSettingsService } from '../modules/checkout-settings/index.js';
import type { CreditPurchaseService } from '../modules/credit-purchases/index.js';
import type { HealthService } from '../modules/health/index.js';
import type { InvoiceBatchService } from '../modules/invoice-batches/index.js';
import type { InvoiceSearchService } from '../modules/invoice-search/index.js';
import type { InvoiceService } from '../modules/invoices/index.js';
import type { CheckoutService } from '../modules/payments/index.js';
import type { PaymentService } from '../modules/payments/index.js';
import type { StatementService } from '../modules/statements/index.js';
import type { HttpProcessCount } from '../modules/service-processes/index.js';
import type { TimelineService } from '../modules/timeline/index.js';
import type { WebhookDeliverer } from '../modules/webhooks/index.js';
import type { WebhookService } from '../modules/webhooks/index.js';
import type { WorkspaceService } from '../modules/workspaces/index.js';
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
  readonly creditPurchases: CreditPurchaseService;
  readonly invoices: InvoiceService;
  readonly invoiceBatches: InvoiceBatchService;
  readonly automations: AutomationService;
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
  readonly statements: StatementService;
  /**
   * Where this process serves HTTP and is registered among the service processes (src/main/start.ts):
   * how many live HTTP processes share the API key and checkout rate limits. Absent: this process alone.
   */
  readonly processes?: HttpProcessCount;
}
