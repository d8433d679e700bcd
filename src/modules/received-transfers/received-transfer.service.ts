import type { Db, Executor } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import type { Clock } from '../../shared/clock.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { formatUsdc } from '../../shared/money.js';
import type { LogTarget } from '../../shared/operator-log.js';
import { append } from '../events/index.js';
import { invoiceOrder, type PaymentIntent, type PaymentService } from '../payment-engine/index.js';
import { presentReceivedTransfer } from './received-transfer.present.js';
import {
  countUnmatched,
  findReceivedTransfer,
  insertReceivedTransfer,
  listReceivedTransfers,
  resolveReceivedTransfer,
} from './received-transfer.repo.js';
import type {
  IncomingTransfer,
  ReceivedTransfer,
  ReceivedTransferId,
  ReceivedTransferReason,
  ReceivedTransferStatus,
} from './received-transfer.js';

export interface ReceivedTransferServiceDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly payments: Pick<PaymentService, 'applyTransfer' | 'attemptsOf'>;
  /** Told of each transfer recorded. */
  readonly log: LogTarget;
}

/** Transfers that paid nothing by themselves, kept in front of the merchant until resolved. */
export class ReceivedTransferService {
  constructor(private readonly deps: ReceivedTransferServiceDeps) {}

  /**
   * Records the transfer for the workspace once, with its `transfer.unmatched` event; a second record of
   * it only names the invoice it was submitted for, when the first named none.
   */
  async record(
    workspaceId: WorkspaceId,
    transfer: IncomingTransfer,
    why: { reason: ReceivedTransferReason; invoiceId: string | null },
  ): Promise<ReceivedTransfer | undefined> {
    const at = this.deps.clock.now();
    const recorded = await this.deps.db.transaction().execute(async (trx) => {
      const recorded = await insertReceivedTransfer(trx, workspaceId, { transfer, ...why, at });
      if (recorded?.created) await announce(trx, 'transfer.unmatched', recorded.record, at);
      return recorded;
    });
    if (recorded?.created) {
      const { id, invoiceId } = recorded.record;
      this.deps.log.info(
        { workspaceId, receivedTransferId: id, invoiceId, network: transfer.network, transactionHash: transfer.txHash },
        `received transfer of ${formatUsdc(transfer.value)} USDC on ${transfer.network} that paid nothing by itself (${why.reason}); it waits for the merchant`,
      );
    }
    return recorded?.record;
  }

  async get(workspaceId: WorkspaceId, id: ReceivedTransferId): Promise<ReceivedTransfer> {
    const found = await findReceivedTransfer(this.deps.db, workspaceId, id);
    if (!found) throw notFound();
    return found;
  }

  /** A page, newest first; `nextCursor` is the id of its last record while more follow. */
  async list(
    workspaceId: WorkspaceId,
    query: { status?: ReceivedTransferStatus; limit: number; cursor?: ReceivedTransferId },
  ): Promise<{ transfers: ReceivedTransfer[]; nextCursor: ReceivedTransferId | null }> {
    let before: { createdAt: Date; id: string } | undefined;
    if (query.cursor) {
      const last = await findReceivedTransfer(this.deps.db, workspaceId, query.cursor);
      if (!last) throw new AppError('invalid_cursor', 'The cursor names no received transfer of this workspace.');
      before = { createdAt: last.createdAt, id: last.id };
    }
    const rows = await listReceivedTransfers(this.deps.db, workspaceId, {
      ...(query.status && { status: query.status }),
      limit: query.limit + 1,
      ...(before && { before }),
    });
    const transfers = rows.slice(0, query.limit);
    return { transfers, nextCursor: rows.length > query.limit ? (transfers.at(-1)?.id ?? null) : null };
  }

  unmatchedCount(workspaceId: WorkspaceId): Promise<number> {
    return countUnmatched(this.deps.db, workspaceId);
  }

  /**
   * Pays the invoice with the transfer (the payment engine records it as any payment, with its events
   * and webhook), then marks it applied. A second apply finds it applied, or its transfer claimed. The
   * payment and the mark are two commits: an apply cut between them (a crash, a lost answer) left the
   * transfer unmatched beside the payment it made, and applying it to that invoice again marks it with
   * that payment.
   */
  async apply(
    workspaceId: WorkspaceId,
    id: ReceivedTransferId,
    choice: { invoiceId: string; acceptShortfall: boolean },
  ): Promise<ReceivedTransfer> {
    const current = await findReceivedTransfer(this.deps.db, workspaceId, id);
    if (!current) throw notFound();
    refuseResolved(current);
    const made = await this.paymentMadeOn(workspaceId, choice.invoiceId, current.transfer);
    const payment =
      made ??
      (await this.deps.payments.applyTransfer(workspaceId, invoiceOrder(choice.invoiceId), current.transfer, {
        acceptShortfall: choice.acceptShortfall,
      }));
    const at = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx) => {
      const applied = await resolveReceivedTransfer(trx, workspaceId, id, {
        status: 'applied',
        invoiceId: choice.invoiceId,
        paymentIntentId: payment.id,
        at,
      });
      await announce(trx, 'transfer.applied', applied, at);
      return applied;
    });
  }

  /** The payment that paid the invoice, when this transfer made it (an apply cut before its mark). */
  private async paymentMadeOn(
    workspaceId: WorkspaceId,
    invoiceId: string,
    transfer: ReceivedTransfer['transfer'],
  ): Promise<PaymentIntent | undefined> {
    const { succeeded: payment } = await this.deps.payments.attemptsOf(
      this.deps.db,
      workspaceId,
      invoiceOrder(invoiceId),
    );
    const same =
      payment?.network === transfer.network &&
      payment.txHash?.toLowerCase() === transfer.txHash.toLowerCase() &&
      payment.logIndex === transfer.logIndex;
    return same ? payment : undefined;
  }

  /** Puts the transfer aside: it pays nothing, and leaves the list of those to resolve. */
  async dismiss(workspaceId: WorkspaceId, id: ReceivedTransferId, note: string | null): Promise<ReceivedTransfer> {
    return this.deps.db.transaction().execute(async (trx) => {
      const current = await findReceivedTransfer(trx, workspaceId, id, { lock: true });
      if (!current) throw notFound();
      refuseResolved(current);
      const at = this.deps.clock.now();
      const dismissed = await resolveReceivedTransfer(trx, workspaceId, id, { status: 'dismissed', note, at });
      await announce(trx, 'transfer.dismissed', dismissed, at);
      return dismissed;
    });
  }
}

/** An applied or dismissed transfer stays as it was resolved. */
export function refuseResolved(transfer: ReceivedTransfer): void {
  if (transfer.status !== 'unmatched')
    throw new AppError(
      'received_transfer_resolved',
      `This received transfer is already ${transfer.status}; it can be resolved only once.`,
    );
}

/** The change feed's event of the record as it now stands (not a webhook kind: receivers expect the spec's kinds). */
function announce(
  trx: Executor,
  type: 'transfer.unmatched' | 'transfer.applied' | 'transfer.dismissed',
  record: ReceivedTransfer,
  at: Date,
): Promise<bigint> {
  return append(trx, record.workspaceId, {
    type,
    invoiceId: record.appliedInvoiceId ?? record.invoiceId,
    data: { receivedTransfer: presentReceivedTransfer(record) },
    at,
  });
}

function notFound(): AppError {
  return new AppError('not_found', 'No such received transfer in this workspace.');
}
