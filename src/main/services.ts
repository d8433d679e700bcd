import { networkNames, type Config } from '../config/config.js';
import { pipelineOf, type Db } from '../db/database.js';
import type { JobHandlers } from '../jobs/index.js';
import type { ChainPort } from '../chain/chain-port.js';
import type { Network } from '../chain/networks.js';
import { apiKeysModule, type ApiKeyService } from '../modules/api-keys/index.js';
import { authModule, type AuthService } from '../modules/auth/index.js';
import { automationsModule, type AutomationService } from '../modules/automations/index.js';
import { billingModule, type BillingService } from '../modules/billing/index.js';
import { checkoutSettingsModule, type CheckoutSettingsService } from '../modules/checkout-settings/index.js';
import { CreditPurchaseService, PurchaseOrderBook, creditPurchaseRoutes } from '../modules/credit-purchases/index.js';
import { dashboardModule } from '../modules/dashboard/index.js';
import { eventsModule, findWebhookEvent } from '../modules/events/index.js';
import { healthModule, type HealthService } from '../modules/health/index.js';
import { invoiceBatchesModule, type InvoiceBatchService } from '../modules/invoice-batches/index.js';
import { invoiceExportModule } from '../modules/invoice-export/index.js';
import { invoiceSearchModule, type InvoiceSearchService } from '../modules/invoice-search/index.js';
import {
  EXPIRE_INVOICES_JOB,
  InvoiceOrderBook,
  InvoiceService,
  expireInvoicesHandler,
  invoiceRoutes,
  scheduleInvoiceJobs,
} from '../modules/invoices/index.js';
import { CheckoutService, purchasePaymentRoutes } from '../modules/checkout/index.js';
import {
  PaymentService,
  SETTLE_JOB,
  VERIFY_TRANSACTION_JOB,
  settleHandler,
  verifyTransactionHandler,
} from '../modules/payment-engine/index.js';
import { invoiceChangePortalRoutes, paymentIntentRoutes, receiptRoutes } from '../modules/payment-views/index.js';
import {
  IDEMPOTENCY_CLEANUP_JOB,
  idempotencyCleanupHandler,
  scheduleIdempotencyCleanup,
} from '../modules/idempotency/index.js';
import { rateLimitsModule } from '../modules/rate-limits/index.js';
import type { HttpProcessCount } from '../modules/service-processes/index.js';
import { statementsModule, type StatementService } from '../modules/statements/index.js';
import { timelineModule, type TimelineService } from '../modules/timeline/index.js';
import { webhooksModule, type WebhookDeliverer, type WebhookService } from '../modules/webhooks/index.js';
import { workspacesModule, type WorkspaceService } from '../modules/workspaces/index.js';
import type { Clock } from '../shared/clock.js';
import { demoWalletServable, type DemoWallet } from '../web/demo-wallet/demo-wallet.js';
import type { RouteTable } from './route-table.js';

/** Every service of the process, as createServices wires them; tests build it the same way. */
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
  /** Every route the modules give, by where the app registers it (src/main/app.ts). */
  readonly routes: RouteTable;
  /** Every job kind the workers run, wired to its module. */
  readonly jobs: JobHandlers;
  /** Creates a module's recurring jobs that do not exist yet; safe on every start of every process. */
  readonly schedules: readonly ((db: Db) => Promise<unknown>)[];
}

export interface ChainDeps {
  /** The checked networks (src/chain/networks.ts). */
  readonly networks: readonly Network[];
  readonly chain: ChainPort;
}

/** For uses without a chain (tests of other capabilities, migrations): any chain call fails loudly. */
export const NO_CHAIN: ChainDeps = {
  networks: [],
  chain: new Proxy({} as ChainPort, {
    get: () => () => Promise.reject(new Error('no chain is configured for these services')),
  }),
};

/**
 * Wires the modules to their adapters and to each other, in dependency order: each module's factory
 * makes its services, routes and jobs. The one place that knows every module.
 */
export function createServices(
  config: Config,
  db: Db,
  clock: Clock,
  chain: ChainDeps = NO_CHAIN,
  demoWallet?: DemoWallet,
  /** Where the process serves HTTP among others: they share the API key and checkout rate limits. */
  processes?: HttpProcessCount,
): Services {
  const base = { db, clock, config };
  const rateLimits = rateLimitsModule({ db });
  const { limits } = rateLimits;
  const creditPurchases: CreditPurchaseService = new CreditPurchaseService({
    db,
    clock,
    packages: config.creditPackages,
    operatorWallet: config.operatorWallet,
    networks: chain.networks,
    publicBaseUrl: config.publicBaseUrl,
    // The engine pays purchases and the purchases show its attempts: each knows the other only through this.
    attempts: (workspaceId, purchaseIds) => payments.purchaseAttempts(workspaceId, purchaseIds),
  });
  const payments: PaymentService = new PaymentService({
    db,
    clock,
    chain: chain.chain,
    networks: chain.networks,
    unseenTransactionMs: config.unseenTransactionMinutes * 60_000,
    // The engine takes payments for both kinds of order; each module answers for its own through its book.
    orders: {
      invoice: new InvoiceOrderBook({ db, networks: chain.networks, publicBaseUrl: config.publicBaseUrl }),
      credit_purchase: new PurchaseOrderBook({
        db,
        networks: chain.networks,
        operatorWallet: config.operatorWallet,
        purchases: creditPurchases,
      }),
    },
  });
  const invoices = new InvoiceService({
    db,
    pipeline: pipelineOf(db),
    clock,
    rules: { maxAmount: config.maxInvoiceAmount, networks: networkNames(config) },
    successFeeCredits: config.successFeeCredits,
    publicBaseUrl: config.publicBaseUrl,
  });
  const checkout = new CheckoutService({ db, clock, networks: chain.networks, payments });
  const auth = authModule({ ...base, limits });
  const apiKeys = apiKeysModule({ ...base, limits });
  const workspaces = workspacesModule({ ...base, limits });
  const billing = billingModule(base);
  const invoiceBatches = invoiceBatchesModule({ ...base, invoices });
  const automations = automationsModule({ ...base, invoices });
  const invoiceSearch = invoiceSearchModule(base);
  const { invoiceExport } = invoiceExportModule(base);
  const checkoutSettings = checkoutSettingsModule(base);
  const events = eventsModule(base);
  const webhooks = webhooksModule({ ...base, findWebhookEvent });
  const timeline = timelineModule(base);
  const health = healthModule(base);
  const statements = statementsModule(base);
  const dashboard = dashboardModule({ clock, invoices, webhooks: webhooks.webhooks });
  const routeDeps = { config, clock, invoices, invoiceExport, payments, checkout, creditPurchases };
  return {
    ...base,
    auth: auth.auth,
    apiKeys: apiKeys.apiKeys,
    workspaces: workspaces.workspaces,
    billing: billing.billing,
    creditPurchases,
    invoices,
    invoiceBatches: invoiceBatches.invoiceBatches,
    automations: automations.automations,
    // Held only by a process listening on loopback: no page offers it and no route serves it otherwise.
    ...(demoWallet && demoWalletServable(config.host) && { demoWallet }),
    invoiceSearch: invoiceSearch.invoiceSearch,
    checkoutSettings: checkoutSettings.checkoutSettings,
    payments,
    checkout,
    webhooks: webhooks.webhooks,
    webhookDeliverer: webhooks.webhookDeliverer,
    timeline: timeline.timeline,
    health: health.health,
    statements: statements.statements,
    ...(processes && { processes }),
    // The order of each list is the order of the API document.
    routes: {
      shared: [
        ...billing.routes,
        ...statements.routes,
        ...creditPurchaseRoutes(routeDeps),
        ...purchasePaymentRoutes(routeDeps),
        ...invoiceRoutes(routeDeps),
        ...automations.routes,
        ...receiptRoutes(routeDeps),
        ...checkoutSettings.routes,
        ...webhooks.routes,
        ...invoiceSearch.routes,
        ...timeline.routes,
        ...health.routes,
      ],
      portalOnly: [
        ...workspaces.portalRoutes,
        ...apiKeys.portalRoutes,
        ...checkoutSettings.portalRoutes,
        ...dashboard.portalRoutes,
        ...invoiceChangePortalRoutes(routeDeps),
      ],
      merchantOnly: [
        invoiceBatches.merchantRoutes,
        paymentIntentRoutes(routeDeps),
        workspaces.merchantRoutes,
        events.merchantRoutes,
      ],
      auth: auth.routes,
      walletPortal: workspaces.walletRoutes,
    },
    jobs: {
      ...auth.jobs,
      ...webhooks.jobs,
      ...events.jobs,
      [EXPIRE_INVOICES_JOB]: expireInvoicesHandler(invoices, db, clock),
      [IDEMPOTENCY_CLEANUP_JOB]: idempotencyCleanupHandler(db, clock),
      ...rateLimits.jobs,
      ...automations.jobs,
      [SETTLE_JOB]: settleHandler(payments),
      [VERIFY_TRANSACTION_JOB]: verifyTransactionHandler(payments),
    },
    schedules: [
      auth.schedule,
      rateLimits.schedule,
      scheduleInvoiceJobs,
      scheduleIdempotencyCleanup,
      events.schedule,
      webhooks.schedule,
    ],
  };
}
