import { networkNames, signInChainIds, type Config } from '../config/config.js';
import { pipelineOf, type Db } from '../db/database.js';
import { ApiKeyService } from '../modules/api-keys/index.js';
import { AuthService } from '../modules/auth/index.js';
import { BillingService } from '../modules/billing/index.js';
import { CheckoutSettingsService } from '../modules/checkout-settings/index.js';
import { CreditPurchaseService, PurchaseOrderBook } from '../modules/credit-purchases/index.js';
import { findWebhookEvent } from '../modules/events/index.js';
import { HealthService } from '../modules/health/index.js';
import { AutomationService } from '../modules/automations/index.js';
import { InvoiceBatchService } from '../modules/invoice-batches/index.js';
import { InvoiceSearchService } from '../modules/invoice-search/index.js';
import { InvoiceOrderBook, InvoiceService } from '../modules/invoices/index.js';
import type { ChainPort } from '../chain/chain-port.js';
import { CheckoutService } from '../modules/checkout/index.js';
import { PaymentService } from '../modules/payment-engine/index.js';
import { RateLimitService } from '../modules/rate-limits/index.js';
import { StatementService } from '../modules/statements/index.js';
import type { HttpProcessCount } from '../modules/service-processes/index.js';
import { TimelineService } from '../modules/timeline/index.js';
import type { Network } from '../chain/networks.js';
import { SenderThread, WebhookDeliverer } from '../modules/webhooks/index.js';
import { WebhookService } from '../modules/webhooks/index.js';
import { WorkspaceService } from '../modules/workspaces/index.js';
import type { Clock } from '../shared/clock.js';
import { demoWalletServable, type DemoWallet } from '../web/demo-wallet/demo-wallet.js';

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

/** Wires the use cases to their adapters. The one place that knows every concrete service. */
export function createServices(
  config: Config,
  db: Db,
  clock: Clock,
  chain: ChainDeps = NO_CHAIN,
  demoWallet?: DemoWallet,
  /** Where the process serves HTTP among others: they share the API key and checkout rate limits. */
  processes?: HttpProcessCount,
): Services {
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
  // One per process: it remembers blocks it has seen; the counts themselves are in the database.
  const limits = new RateLimitService({ db });
  return {
    config,
    db,
    clock,
    auth: new AuthService({
      db,
      clock,
      publicBaseUrl: config.publicBaseUrl,
      chainIds: signInChainIds(config),
      limits,
      noncesPerMinute: config.nonceRateLimitPerMinute,
    }),
    apiKeys: new ApiKeyService({ db, limits, failedAttemptsPerMinute: config.failedApiKeyLimitPerMinute }),
    workspaces: new WorkspaceService({
      db,
      newWorkspaceCredits: config.newWorkspaceCredits,
      maxWorkspacesPerWallet: config.maxWorkspacesPerWallet,
      freeGrantsPerIpPerDay: config.freeGrantsPerIpPerDay,
      limits,
    }),
    billing: new BillingService({
      db,
      maxInvoiceAmount: config.maxInvoiceAmount,
      successFeeCredits: config.successFeeCredits,
      creditPackages: config.creditPackages,
    }),
    creditPurchases,
    invoices,
    invoiceBatches: new InvoiceBatchService({ db, clock, invoices }),
    automations: new AutomationService({ db, clock, invoices, publicBaseUrl: config.publicBaseUrl }),
    // Held only by a process listening on loopback: no page offers it and no route serves it otherwise.
    ...(demoWallet && demoWalletServable(config.host) && { demoWallet }),
    invoiceSearch: new InvoiceSearchService({ db, clock, publicBaseUrl: config.publicBaseUrl }),
    checkoutSettings: new CheckoutSettingsService({ db }),
    payments,
    checkout: new CheckoutService({ db, clock, networks: chain.networks, payments }),
    webhooks: new WebhookService({ db, clock, allowPrivate: config.webhookAllowPrivate, findWebhookEvent }),
    webhookDeliverer: new WebhookDeliverer({
      db,
      clock,
      allowPrivate: config.webhookAllowPrivate,
      retrySchedule: config.webhookRetrySchedule,
      retryWindowSeconds: config.webhookRetryWindowSeconds,
      send: new SenderThread({ allowPrivate: config.webhookAllowPrivate }).send,
    }),
    timeline: new TimelineService({ db, clock }),
    health: new HealthService({
      db,
      clock,
      successFeeCredits: config.successFeeCredits,
      webhookRetrySchedule: config.webhookRetrySchedule,
    }),
    statements: new StatementService({ db, clock }),
    ...(processes && { processes }),
  };
}
