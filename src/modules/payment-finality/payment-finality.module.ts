import type { ChainPort } from '../../chain/chain-port.js';
import { blockSeconds, type Network } from '../../chain/networks.js';
import type { Db } from '../../db/database.js';
import { enqueueJob, RetryLater, silentJobLogger, type JobHandlers, type JobLogger } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import { NEW_BLOCK } from '../new-blocks/index.js';
import type { PaymentService } from '../payment-engine/index.js';
import { PaymentFinalityWatch } from './payment-finality.service.js';

export const FINALITY_JOB = 'payments.finality';
/** Nothing to re-check: how often the database is asked whether a payment was recorded (the node is asked nothing). */
const IDLE_SECONDS = 5;
/** After a failed look (the node down or erring): the next try. */
const RETRY_AFTER_FAILURE_SECONDS = 5;

export interface PaymentFinalityModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly chain: ChainPort;
  readonly networks: readonly Network[];
  readonly payments: Pick<PaymentService, 'revertPayment'>;
  readonly logger?: JobLogger;
}

/**
 * Finality of recorded payments: one durable job a network, which never completes, re-checks the
 * payments recorded there at each new block until they are final, and reverts those a reorganisation
 * took out of the chain.
 */
export function paymentFinalityModule(deps: PaymentFinalityModuleDeps) {
  const { networks } = deps;
  const logger = deps.logger ?? silentJobLogger;
  const watch = new PaymentFinalityWatch(deps);
  return {
    jobs: {
      [FINALITY_JOB]: async (job) => {
        const name = (job.payload as { network?: string }).network;
        const network = networks.find((candidate) => candidate.name === name);
        // A network no longer configured: its watch ends (a new one starts if it comes back).
        if (!network) return;
        const interval = blockSeconds(network);
        let waiting: number;
        try {
          waiting = await watch.check(network);
        } catch (error) {
          logger.warn({ err: error, network: network.name }, 'could not re-check recorded payments; retrying');
          throw new RetryLater(RETRY_AFTER_FAILURE_SECONDS, 'the node did not answer');
        }
        if (waiting === 0) throw new RetryLater(Math.max(IDLE_SECONDS, interval), 'no payment to re-check');
        throw new RetryLater(interval, 'waiting for the next block', NEW_BLOCK);
      },
    } satisfies JobHandlers,
    /** One watch a configured network, unless it exists (its unique key makes this safe on every start). */
    schedule: async (db: Db) => {
      for (const network of networks)
        await enqueueJob(db, {
          kind: FINALITY_JOB,
          uniqueKey: `${FINALITY_JOB}:${network.name}`,
          payload: { network: network.name },
        });
    },
  };
}
