import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { Pipeline } from './pipeline.js';
import type { AuthNonceTable, SessionTable } from '../modules/auth/index.js';
import type { ApiKeyTable } from '../modules/api-keys/index.js';
import type { AutomationTable } from '../modules/automations/index.js';
import type { CreditAccountTable, CreditLedgerTable } from '../modules/billing/index.js';
import type { CreditPurchaseTable } from '../modules/credit-purchases/index.js';
import type { WorkspaceTable } from '../modules/workspaces/index.js';
import type { JobTable } from '../jobs/job.table.js';
import type { EventTable } from '../modules/events/index.js';
import type { InvoiceBatchTable } from '../modules/invoice-batches/index.js';
import type { IdempotencyKeyTable, InvoiceTable } from '../modules/invoices/index.js';
import type {
  PaymentAuthorizationTable,
  PaymentClaimTable,
  PaymentIntentTable,
  RelayerNonceTable,
} from '../modules/payments/index.js';
import type { RateLimitCounterTable } from '../modules/rate-limits/index.js';
import type { ServiceProcessTable } from '../modules/service-processes/index.js';
import type { WebhookAttemptTable, WebhookDeliveryTable, WebhookEndpointTable } from '../modules/webhooks/index.js';

export interface Database {
  workspaces: WorkspaceTable;
  credit_accounts: CreditAccountTable;
  credit_ledger: CreditLedgerTable;
  credit_purchases: CreditPurchaseTable;
  auth_nonces: AuthNonceTable;
  sessions: SessionTable;
  api_keys: ApiKeyTable;
  jobs: JobTable;
  invoices: InvoiceTable;
  events: EventTable;
  idempotency_keys: IdempotencyKeyTable;
  payment_intents: PaymentIntentTable;
  payment_claims: PaymentClaimTable;
  payment_authorizations: PaymentAuthorizationTable;
  relayer_nonces: RelayerNonceTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  invoice_batches: InvoiceBatchTable;
  rate_limit_counters: RateLimitCounterTable;
  automations: AutomationTable;
  service_processes: ServiceProcessTable;
}

export type Db = Kysely<Database>;
/** What repositories and services take: the database, or the transaction of the use case. */
export type Executor = Kysely<Database> | Transaction<Database>;

const INT8_OID = 20;

/** PostgreSQL `bigint` arrives as a JS `bigint`: money and counters never pass through a float. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (value: string) => BigInt(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface DatabaseHandle {
  readonly pool: pg.Pool;
  readonly db: Db;
  close(): Promise<void>;
}

/** The pipelined connection opened beside each pool, found from the pool's Kysely instance. */
const pipelines = new WeakMap<Db, Pipeline>();

export function openDatabase(connection: pg.PoolConfig, poolSize = 8): DatabaseHandle {
  const pool = new pg.Pool({ ...connection, max: poolSize, types });
  // An idle client's error (e.g. the server restarted) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  // It connects only when a use case first sends on it.
  const pipeline = new Pipeline({ ...connection, types });
  pipelines.set(db, pipeline);
  return { pool, db, close: () => Promise.all([pipeline.close(), db.destroy()]).then(() => {}) };
}

/** The pipeline of the database `db` was opened on (openDatabase); none for a Kysely made elsewhere. */
export function pipelineOf(db: Db): Pipeline | undefined {
  return pipelines.get(db);
}
