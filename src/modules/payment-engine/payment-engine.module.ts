import type { ChainPort } from '../../chain/chain-port.js';
import type { Network } from '../../chain/networks.js';
import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Job, JobHandlers } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { LogTarget } from '../../shared/operator-log.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { RelayerWatch, SettlementSender } from '../relayer/index.js';
import type { OrderBooks } from './order.js';
import type { PaymentIntentId } from './payment-intent.js';
import { PaymentService, SETTLE_JOB, VERIFY_TRANSACTION_JOB, type UnpaidTransfers } from './payment.service.js';

export interface PaymentEngineModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'unseenTransactionMinutes'>;
  readonly chain: ChainPort;
  readonly networks: readonly Network[];
  /** What may pay each kind of order, and its payment steps: the orders' own modules answer. */
  readonly orders: OrderBooks;
  /** Where submitted transfers that pay nothing are recorded (the received-transfers module). */
  readonly unpaidTransfers?: UnpaidTransfers;
  /** The relayer that pays the gas of settlements (the relayer module). */
  readonly relayer: { readonly watch: RelayerWatch; readonly sender: SettlementSender };
  readonly log: LogTarget;
}

/**
 * The payment engine: verification, settlement and the relayer, and their jobs (one per payment intent,
 * each rescheduling itself while it waits for the chain).
 */
export function paymentEngineModule(deps: PaymentEngineModuleDeps) {
  const payments = new PaymentService({
    db: deps.db,
    clock: deps.clock,
    chain: deps.chain,
    networks: deps.networks,
    unseenTransactionMs: deps.config.unseenTransactionMinutes * 60_000,
    orders: deps.orders,
    relayer: deps.relayer,
    log: deps.log,
    ...(deps.unpaidTransfers && { unpaidTransfers: deps.unpaidTransfers }),
  });
  const intentOf = (job: Job) =>
    [job.workspaceId as WorkspaceId, (job.payload as { intentId: PaymentIntentId }).intentId] as const;
  return {
    payments,
    jobs: {
      [SETTLE_JOB]: (job) => payments.settle(...intentOf(job)),
      [VERIFY_TRANSACTION_JOB]: (job) => payments.verifyTransaction(...intentOf(job)),
    } satisfies JobHandlers,
  };
}
