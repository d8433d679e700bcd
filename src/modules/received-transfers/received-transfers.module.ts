import type { ChainPort } from '../../chain/chain-port.js';
import type { Network } from '../../chain/networks.js';
import type { Db } from '../../db/database.js';
import { enqueueJob, RetryLater, silentJobLogger, type JobHandlers, type JobLogger } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { PaymentService } from '../payment-engine/index.js';
import { receivedTransferRoutes } from './received-transfer.routes.js';
import { ReceivedTransferService } from './received-transfer.service.js';
import { TransferScanner } from './transfer-scan.js';

export const SCAN_TRANSFERS_JOB = 'transfers.scan';
/** After a failed scan (the node down or erring): the next try, whatever the block time. */
const RETRY_AFTER_FAILURE_SECONDS = 5;

export interface ReceivedTransfersModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly chain: ChainPort;
  readonly networks: readonly Network[];
  readonly payments: PaymentService;
  readonly logger?: JobLogger;
}

/**
 * Transfers found on the chain: the scan of each network (one durable job a network, which never
 * completes), and the received transfers it and the payment engine record, which the merchant resolves.
 */
export function receivedTransfersModule(deps: ReceivedTransfersModuleDeps) {
  const { db, clock, chain, networks, payments } = deps;
  const logger = deps.logger ?? silentJobLogger;
  const receivedTransfers = new ReceivedTransferService({ db, clock, payments, log: logger });
  const scanner = new TransferScanner({ db, clock, chain, payments, receivedTransfers, logger });
  return {
    receivedTransfers,
    scanner,
    routes: receivedTransferRoutes({ receivedTransfers }),
    jobs: {
      [SCAN_TRANSFERS_JOB]: async (job) => {
        const name = (job.payload as { network?: string }).network;
        const network = networks.find((candidate) => candidate.name === name);
        // A network no longer configured: its scan ends (a new one starts if it comes back).
        if (!network) return;
        let wait: number;
        try {
          wait = await scanner.scan(network);
        } catch (error) {
          logger.warn(
            { err: error, network: network.name },
            'the transfer scan failed; it resumes from where it stopped',
          );
          wait = RETRY_AFTER_FAILURE_SECONDS;
        }
        throw new RetryLater(wait, 'scanning the next blocks');
      },
    } satisfies JobHandlers,
    /** One scan a configured network, unless it exists (its unique key makes this safe on every start). */
    schedule: async (db: Db) => {
      for (const network of networks)
        await enqueueJob(db, {
          kind: SCAN_TRANSFERS_JOB,
          uniqueKey: `${SCAN_TRANSFERS_JOB}:${network.name}`,
          payload: { network: network.name },
        });
    },
  };
}
