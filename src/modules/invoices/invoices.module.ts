import { networkNames, type Config } from '../../config/config.js';
import type { Network } from '../../chain/networks.js';
import { pipelineOf, type Db } from '../../db/database.js';
import { RetryLater, enqueueJob, type JobHandlers } from '../../jobs/index.js';
import type { SharedRoute } from '../../http/workspace-route.js';
import type { Clock } from '../../shared/clock.js';
import { InvoiceOrderBook, type ReceiptBook } from './invoice.payable.js';
import { nextOpenDeadline } from './invoice.repo.js';
import { invoiceRoutes } from './invoice.routes.js';
import { InvoiceService } from './invoice.service.js';

const EXPIRE_INVOICES_JOB = 'invoices.expire';
/** The longest the expiry job sleeps, so a new earlier deadline is noticed within this bound. */
const MAX_EXPIRY_SLEEP_SECONDS = 30;

export interface InvoicesModuleDeps {
  readonly db: Db;
  /** Where lists and totals read: a replica within DATABASE_READ_MAX_LAG_MS (src/db/read-replicas.ts); default `db`. */
  readonly reads?: Db;
  readonly clock: Clock;
  readonly config: Config;
  /** The networks payments are taken on (the chain's checked ones). */
  readonly networks: readonly Network[];
  /** GET /invoices/export (the invoice-export module's), served in its place among the invoice routes. */
  readonly exportRoute: SharedRoute;
  /** The receipts module's numbering, which a payment and its reversal call in their transactions. */
  readonly receipts: ReceiptBook;
}

/** Invoices: use cases, routes, expiry, and the book the payment engine pays them through. */
export function invoicesModule(deps: InvoicesModuleDeps) {
  const { db, clock, config } = deps;
  const invoices = new InvoiceService({
    db,
    reads: deps.reads,
    pipeline: pipelineOf(db),
    clock,
    // The networks payments are taken on (checked at start); without a chain, the configured names.
    rules: {
      maxAmount: config.maxInvoiceAmount,
      networks: deps.networks.length > 0 ? deps.networks.map((network) => network.name) : networkNames(config),
      loopbackHttp: config.webhookAllowPrivate,
    },
    successFeeCredits: config.successFeeCredits,
    presentation: config,
  });
  return {
    invoices,
    orderBook: new InvoiceOrderBook({
      db,
      networks: deps.networks,
      presentation: config,
      receipts: deps.receipts,
    }),
    routes: invoiceRoutes({ invoices, exportRoute: deps.exportRoute, config, clock }),
    jobs: {
      // Moves open invoices past their deadline to `expired` (releasing the success-fee reserve), then
      // sleeps until the next deadline. One durable row that never completes: a restart loses nothing,
      // and reads already show due invoices as expired in the meantime.
      [EXPIRE_INVOICES_JOB]: async () => {
        while ((await invoices.expireDue()) > 0);
        const next = await nextOpenDeadline(db);
        const untilNext = next ? Math.ceil((next.getTime() - clock.now().getTime()) / 1000) : MAX_EXPIRY_SLEEP_SECONDS;
        throw new RetryLater(
          Math.min(MAX_EXPIRY_SLEEP_SECONDS, Math.max(1, untilNext)),
          'waiting for the next deadline',
        );
      },
    } satisfies JobHandlers,
    /** Creates the recurring expiry unless it exists (its unique key makes this safe on every start). */
    schedule: (db: Db) => enqueueJob(db, { kind: EXPIRE_INVOICES_JOB, uniqueKey: EXPIRE_INVOICES_JOB }),
  };
}
