import type { Config } from '../config/config.js';
import type { Db } from '../db/database.js';
import { readReplicasOf, type ReadReplicas } from '../db/read-replicas.js';
import type { JobHandlers } from '../jobs/index.js';
import type { ChainPort } from '../chain/chain-port.js';
import type { Network } from '../chain/networks.js';
import type { NetworkProviders, RpcClients } from '../chain/rpc-clients.js';
import { apiKeysModule, type ApiKeyService } from '../modules/api-keys/index.js';
import { authModule, type AuthService } from '../modules/auth/index.js';
import { automationsModule, type AutomationService } from '../modules/automations/index.js';
import { billingModule, type BillingService } from '../modules/billing/index.js';
import { checkoutModule, type CheckoutService } from '../modules/checkout/index.js';
import { checkoutSettingsModule, type CheckoutSettingsService } from '../modules/checkout-settings/index.js';
import { creditPurchasesModule, type CreditPurchaseService } from '../modules/credit-purchases/index.js';
import { dashboardModule } from '../modules/dashboard/index.js';
import { eventsModule, findWebhookEvent } from '../modules/events/index.js';
import { healthModule, type HealthService } from '../modules/health/index.js';
import { idempotencyModule } from '../modules/idempotency/index.js';
import { invoiceBatchesModule, type InvoiceBatchService } from '../modules/invoice-batches/index.js';
import { invoiceExportModule } from '../modules/invoice-export/index.js';
import { invoiceSearchModule, type InvoiceSearchService } from '../modules/invoice-search/index.js';
import { invoicesModule, type InvoiceService } from '../modules/invoices/index.js';
import { paymentEngineModule, type PaymentService } from '../modules/payment-engine/index.js';
import { paymentViewsModule } from '../modules/payment-views/index.js';
import { receiptIssues, receiptsModule, voidReceipt, type ReceiptService } from '../modules/receipts/index.js';
import { rateLimitsModule } from '../modules/rate-limits/index.js';
import { relayerModule, type RelayerWatch, type SettlementSender } from '../modules/relayer/index.js';
import { paymentFinalityModule } from '../modules/payment-finality/index.js';
import { receivedTransfersModule, type ReceivedTransferService } from '../modules/received-transfers/index.js';
import type { HttpProcessCount } from '../modules/service-processes/index.js';
import { statementsModule, type StatementService } from '../modules/statements/index.js';
import { timelineModule, type TimelineService } from '../modules/timeline/index.js';
import { webhookEndpointModule, type WebhookEndpointService } from '../modules/webhook-endpoint/index.js';
import {
  DELIVERY_HISTORY_DAYS,
  resumeWaitingDeliveries,
  webhooksModule,
  type WebhookDeliverer,
  type WebhookService,
} from '../modules/webhooks/index.js';
import { workspacesModule, type WorkspaceService } from '../modules/workspaces/index.js';
import type { Clock } from '../shared/clock.js';
import { OperatorLog } from '../shared/operator-log.js';
import { demoWalletServable, type DemoWallet } from '../web/demo-wallet/demo-wallet.js';
import type { RouteTable } from './route-table.js';

/** Every service of the process, as createServices wires them; tests build it the same way. */
export interface Services {
  readonly config: Config;
  readonly db: Db;
  /** DATABASE_READ_URL's replicas, where lists and the feed read; undefined without. */
  readonly readReplicas: ReadReplicas | undefined;
  readonly clock: Clock;
  readonly log: OperatorLog;
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
  /** Each network's RPC providers: their calls, errors, heads and skips (/metrics, /readyz). */
  rpcProviders(): NetworkProviders[];
  /** The relayer's funds on every network (/metrics, /readyz), and its settlements. */
  readonly relayer: { readonly watch: RelayerWatch; readonly sender: SettlementSender };
  readonly checkout: CheckoutService;
  readonly receipts: ReceiptService;
  readonly receivedTransfers: ReceivedTransferService;
  readonly webhooks: WebhookService;
  readonly webhookEndpoint: WebhookEndpointService;
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
  /**
   * The kinds of `jobs` on a payment's way from the buyer to paid (verification, settlement, the scan for
   * transfers, finality): the workers run them on slots of their own (src/main/jobs.ts).
   */
  readonly paymentJobKinds: readonly string[];
  /** Creates a module's recurring jobs that do not exist yet; safe on every start of every process. */
  readonly schedules: readonly ((db: Db) => Promise<unknown>)[];
}

export interface ChainDeps {
  /** The checked networks (src/chain/networks.ts). */
  readonly networks: readonly Network[];
  readonly chain: ChainPort;
  /**
   * A port for each relayer account (RELAYER_PRIVATE_KEYS), each signing settlements as its `relayer`;
   * by default `chain` alone.
   */
  readonly signers?: readonly ChainPort[];
  /** The clients the chain calls through, when /metrics and /readyz are to show its providers. */
  readonly rpc?: RpcClients;
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
  // The operator's lines of business events; the process plugs its logger in once it has one.
  const base = { db, clock, config, log: new OperatorLog() };
  // Lists, search, exports, statements, the dashboard and the feed may lag by DATABASE_READ_MAX_LAG_MS:
  // they read on a replica when there is one. Everything that decides, and every read of one resource
  // (which a client reads right after writing it), stays on the primary (docs/deploy.md, "Read replicas").
  const readReplicas = readReplicasOf(db);
  const reads = readReplicas?.db ?? db;
  readReplicas?.useEvents({
    changed: (replica, serving, why) =>
      serving
        ? base.log.info({ replica }, `read replica ${replica} serves reads again: ${why}`)
        : base.log.warn({ replica }, `read replica ${replica} serves no reads, the primary does: ${why}`),
  });
  const rateLimits = rateLimitsModule({ db });
  const { limits } = rateLimits;
  const idempotency = idempotencyModule({ db, clock });
  const networks = chain.networks;
  const invoiceExport = invoiceExportModule({ clock, db: reads });
  const invoices = invoicesModule({
    ...base,
    reads,
    networks,
    exportRoute: invoiceExport.route,
    receipts: { issues: receiptIssues, void: voidReceipt },
  });
  const creditPurchases = creditPurchasesModule({
    ...base,
    networks,
    // The engine pays purchases and the purchases show its attempts: each knows the other only through this.
    attempts: (db, workspaceId, purchaseIds) => payments.purchaseAttempts(db, workspaceId, purchaseIds),
  });
  const relayer = relayerModule({ ...base, signers: chain.signers ?? [chain.chain], networks });
  const engine = paymentEngineModule({
    ...base,
    chain: chain.chain,
    networks,
    relayer,
    // The engine takes payments for both kinds of order; each module answers for its own through its book.
    orders: { invoice: invoices.orderBook, credit_purchase: creditPurchases.orderBook },
    // Submitted transfers that pay nothing go to the received transfers, which pay through the engine.
    unpaidTransfers: { record: (...args) => receivedTransfers.receivedTransfers.record(...args) },
  });
  const { payments } = engine;
  const checkout = checkoutModule({ db, clock, networks, payments, relayer: relayer.watch });
  const paymentViews = paymentViewsModule({ clock, payments });
  const receipts = receiptsModule({ db, networks, payments });
  const receivedTransfers = receivedTransfersModule({
    ...base,
    chain: chain.chain,
    networks,
    payments,
    logger: base.log,
  });
  const paymentFinality = paymentFinalityModule({
    db,
    clock,
    chain: chain.chain,
    networks,
    payments,
    logger: base.log,
  });
  const auth = authModule({ ...base, limits });
  const apiKeys = apiKeysModule({ ...base, limits });
  const workspaces = workspacesModule({ ...base, limits });
  // The ledger names invoices by their numbers, which only the invoices know.
  const billing = billingModule({
    ...base,
    invoiceNumbers: (workspaceId, invoiceIds) => invoices.invoices.numbers(workspaceId, invoiceIds),
  });
  const invoiceBatches = invoiceBatchesModule({ ...base, invoices: invoices.invoices });
  const automations = automationsModule({ ...base, invoices: invoices.invoices });
  const invoiceSearch = invoiceSearchModule({ ...base, db: reads });
  const checkoutSettings = checkoutSettingsModule(base);
  const events = eventsModule({ ...base, reads });
  // Enabling a paused endpoint sends the deliveries that waited, which only the webhooks module knows.
  const webhookEndpoint = webhookEndpointModule({ ...base, resumeDeliveries: resumeWaitingDeliveries });
  const webhooks = webhooksModule({
    ...base,
    reads,
    findWebhookEvent,
    webhookEndpoint: webhookEndpoint.webhookEndpoint,
  });
  const timeline = timelineModule({
    ...base,
    retention: { attemptDays: DELIVERY_HISTORY_DAYS, invoiceDays: config.invoiceRetentionDays },
    // An archived invoice's snapshot: the invoice as read, and its receipt (the payment that paid it).
    snapshots: {
      invoice: (workspaceId, invoiceId) => invoices.invoices.get(workspaceId, invoiceId),
      receipt: (workspaceId, invoiceId) => receipts.receipts.read(workspaceId, invoiceId),
    },
  });
  const health = healthModule(base);
  const statements = statementsModule({ clock, db: reads });
  const dashboard = dashboardModule({ clock, invoices: invoices.invoices, webhooks: webhooks.webhooks });
  return {
    ...base,
    readReplicas,
    auth: auth.auth,
    apiKeys: apiKeys.apiKeys,
    workspaces: workspaces.workspaces,
    billing: billing.billing,
    creditPurchases: creditPurchases.creditPurchases,
    invoices: invoices.invoices,
    invoiceBatches: invoiceBatches.invoiceBatches,
    automations: automations.automations,
    // Held only by a process listening on loopback: no page offers it and no route serves it otherwise.
    ...(demoWallet && demoWalletServable(config.host) && { demoWallet }),
    invoiceSearch: invoiceSearch.invoiceSearch,
    checkoutSettings: checkoutSettings.checkoutSettings,
    payments,
    rpcProviders: () => chain.rpc?.status() ?? [],
    relayer,
    checkout: checkout.checkout,
    receipts: receipts.receipts,
    receivedTransfers: receivedTransfers.receivedTransfers,
    webhooks: webhooks.webhooks,
    webhookEndpoint: webhookEndpoint.webhookEndpoint,
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
        ...creditPurchases.routes,
        ...checkout.routes,
        ...invoices.routes,
        ...automations.routes,
        ...receipts.routes,
        ...receivedTransfers.routes,
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
        ...paymentViews.portalRoutes,
      ],
      merchantOnly: [
        invoiceBatches.merchantRoutes,
        paymentViews.merchantRoutes,
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
      ...invoices.jobs,
      ...idempotency.jobs,
      ...rateLimits.jobs,
      ...automations.jobs,
      ...engine.jobs,
      ...receivedTransfers.jobs,
      ...paymentFinality.jobs,
    },
    paymentJobKinds: [engine.jobs, receivedTransfers.jobs, paymentFinality.jobs].flatMap(Object.keys),
    schedules: [
      auth.schedule,
      rateLimits.schedule,
      invoices.schedule,
      idempotency.schedule,
      events.schedule,
      webhooks.schedule,
      receivedTransfers.schedule,
      paymentFinality.schedule,
    ],
  };
}
