import type { ChainPort, ChainTransfer } from '../../chain/chain-port.js';
import { blockSeconds, type Network } from '../../chain/networks.js';
import type { Db } from '../../db/database.js';
import type { JobLogger } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { transferCandidates, watchedWallets, type WatchedWallet } from './transfer-candidates.repo.js';
import { invoiceOrder, paymentTransactions, type PaymentService } from '../payment-engine/index.js';
import { matchTransfer, type IncomingTransfer } from './received-transfer.js';
import { saveScanPosition, scanPosition } from './received-transfer.repo.js';
import type { ReceivedTransferService } from './received-transfer.service.js';

/** Invoices closed this recently keep their wallet watched: a late or second payment is still recorded. */
export const CLOSED_WATCH_MS = 3600_000;
/** Blocks read by one eth_getLogs at most, when the scan catches up after an outage. */
const MAX_BLOCKS_PER_SCAN = 500n;
/** Nothing watched: how often the database is asked whether an invoice opened (the node is asked nothing). */
const IDLE_SECONDS = 2;
/** Back from the head at most, when a scan starts after none watched: a day of 2-second blocks. */
const MAX_LOOKBACK_BLOCKS = 43_200n;

export interface TransferScannerDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly chain: ChainPort;
  readonly payments: Pick<PaymentService, 'submitTransaction'>;
  readonly receivedTransfers: Pick<ReceivedTransferService, 'record'>;
  readonly logger: JobLogger;
}

/**
 * Finds the USDC transfers that reach the wallets of open invoices by reading the chain, block by
 * block: per network, one eth_getLogs per new confirmed block range with every watched wallet in the
 * filter, from a position kept in PostgreSQL, so a restart or an outage resumes where the scan stopped.
 * Only blocks with the network's confirmations are read: a reorganisation before them changes nothing.
 * A transfer that clearly pays one invoice pays it as a submitted hash would (the payment engine verifies
 * it); every other one is recorded as a received transfer for the merchant to resolve.
 */
export class TransferScanner {
  constructor(private readonly deps: TransferScannerDeps) {}

  /** One step of the network's scan; answers the seconds until the next one. */
  async scan(network: Network): Promise<number> {
    const { db, clock, chain } = this.deps;
    const now = clock.now();
    const closedSince = new Date(now.getTime() - CLOSED_WATCH_MS);
    const interval = blockSeconds(network);
    const [watched, position] = await Promise.all([watchedWallets(db, closedSince), scanPosition(db, network.name)]);
    if (watched.length === 0) {
      // Idle: the node is asked nothing, and the next scan starts near the head again.
      if (position !== null && position !== undefined) await saveScanPosition(db, network.name, null);
      return Math.max(IDLE_SECONDS, interval);
    }
    const confirmed = (await chain.blockNumber(network)) - BigInt(network.confirmations - 1);
    const from = position ?? startAfterIdle(confirmed, watched, now, interval);
    if (from > confirmed) {
      if (position === null || position === undefined) await saveScanPosition(db, network.name, from);
      return interval;
    }
    const to = confirmed - from >= MAX_BLOCKS_PER_SCAN ? from + MAX_BLOCKS_PER_SCAN - 1n : confirmed;
    const wallets = [...new Set(watched.map((entry) => entry.wallet))];
    const found = await chain.transfersTo(network, wallets, from, to);
    await this.judge(network, found, watched, closedSince);
    await saveScanPosition(db, network.name, to + 1n);
    // Behind the head (after an outage): the next range at once.
    return to < confirmed ? 0 : interval;
  }

  /**
   * Pays or records each transfer, in block order. Transfers of transactions a payment already follows
   * (a submitted hash, a settlement, a claimed transfer) are the payment engine's. Safe to run again on
   * the same transfers: a paid invoice is no longer open, and a received transfer is recorded once.
   */
  private async judge(
    network: Network,
    found: readonly ChainTransfer[],
    watched: readonly WatchedWallet[],
    closedSince: Date,
  ): Promise<void> {
    const followed = await paymentTransactions(this.deps.db, network.name, [...new Set(found.map((t) => t.txHash))]);
    for (const chainTransfer of found) {
      if (followed.has(chainTransfer.txHash.toLowerCase())) continue;
      const transfer: IncomingTransfer = { ...chainTransfer, network: network.name };
      const candidates = await transferCandidates(this.deps.db, {
        payTo: transfer.to,
        amount: transfer.value,
        network: network.name,
        closedSince,
      });
      const match = matchTransfer(transfer, candidates);
      if (match.kind === 'engine') continue;
      if (match.kind === 'pays') {
        const paid = await this.pay(network, transfer, match.invoice.workspaceId, match.invoice.id);
        // Refused because a payment took it meanwhile (the buyer submitted its hash): the engine's.
        if (!paid && !(await paymentTransactions(this.deps.db, network.name, [transfer.txHash])).size)
          await this.deps.receivedTransfers.record(match.invoice.workspaceId, transfer, {
            reason: 'no_matching_invoice',
            invoiceId: match.invoice.id,
          });
        continue;
      }
      const owners = new Set(watched.filter((entry) => entry.wallet === transfer.to).map((entry) => entry.workspaceId));
      const meantFor = match.invoiceId ? candidates.find((invoice) => invoice.id === match.invoiceId) : undefined;
      for (const workspaceId of owners)
        await this.deps.receivedTransfers.record(workspaceId, transfer, {
          reason: match.reason,
          invoiceId: meantFor?.workspaceId === workspaceId ? meantFor.id : null,
        });
    }
  }

  /** Pays the invoice with the transfer as a submitted hash does; false when the invoice refuses it now. */
  private async pay(network: Network, transfer: IncomingTransfer, workspaceId: WorkspaceId, invoiceId: string) {
    try {
      await this.deps.payments.submitTransaction(workspaceId, invoiceOrder(invoiceId), {
        network,
        txHash: transfer.txHash,
        seenOnChain: true,
      });
      return true;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      this.deps.logger.info(
        { invoiceId, txHash: transfer.txHash, code: error.code },
        'a transfer found on the chain matched an invoice that refused it; recorded as received',
      );
      return false;
    }
  }
}

/**
 * Where a scan starts when none was watching: back from the confirmed head by the time since the oldest
 * watched invoice was created (at the network's block time), so a transfer made since is not missed.
 */
function startAfterIdle(confirmed: bigint, watched: readonly WatchedWallet[], now: Date, blockSeconds: number): bigint {
  const oldest = Math.min(...watched.map((entry) => entry.since.getTime()));
  const back = BigInt(Math.ceil(Math.max(0, now.getTime() - oldest) / 1000 / blockSeconds) + 1);
  const start = confirmed - (back < MAX_LOOKBACK_BLOCKS ? back : MAX_LOOKBACK_BLOCKS);
  return start > 0n ? start : 0n;
}
