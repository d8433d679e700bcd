import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { Executor } from '../../db/database.js';
import type { WorkspaceWrites } from '../events/index.js';
import type { LockedRows } from '../../db/locked-rows.js';
import type { OrderBooks, OrderKind, OrderRef, PayableOrder, PaymentStep, StepResult } from './order.js';

/** An order's state as its book read it, with the kind that book judges it by. */
export interface OrderState {
  readonly kind: OrderKind;
  readonly state: unknown;
}

/**
 * The orders the payment engine takes payments for — invoices and credit purchases — behind one face:
 * read one as a PayableOrder, refuse one that cannot take a payment now (with its own 409 code), and
 * hand each payment step to its state machine inside the engine's transaction. Each kind answers
 * through its own book (order.ts); this only picks the book and names what is missing.
 */
export class Orders {
  constructor(
    private readonly books: OrderBooks,
    private readonly clock: Clock,
  ) {}

  /** The order as it is (any status), or undefined when the workspace has no such order. */
  find(db: Executor, workspaceId: WorkspaceId, ref: OrderRef): Promise<PayableOrder | undefined> {
    return this.books[ref.kind].find(db, workspaceId, ref.id);
  }

  /** The order, if it can take a new payment now; otherwise the error that says why. */
  async payable(workspaceId: WorkspaceId, ref: OrderRef): Promise<PayableOrder> {
    return this.judge(await this.read(workspaceId, ref), this.clock.now());
  }

  /**
   * What decides whether an order can take a payment. Changes of it are announced on
   * ORDER_CHANGES_CHANNEL, so a copy can be kept while they are heard.
   */
  async read(workspaceId: WorkspaceId, ref: OrderRef): Promise<OrderState> {
    return { kind: ref.kind, state: await this.books[ref.kind].read(workspaceId, ref.id) };
  }

  /** The order of `state`, if it can take a new payment at `now`; otherwise the error that says why. */
  judge(state: OrderState, now: Date): PayableOrder {
    return this.books[state.kind].judge(state.state, now);
  }

  /** Locks the order row: the payments of one order are ordered by it. */
  async lock(trx: Executor, workspaceId: WorkspaceId, ref: OrderRef): Promise<void> {
    if (!(await this.books[ref.kind].lock(trx, workspaceId, ref.id))) throw notFound(ref);
  }

  /** Locks the rows of these orders, one statement a kind, and keeps them in `into` for `apply` (OrderBook.lockAll). */
  async lockAll(trx: Executor, workspaceId: WorkspaceId, refs: readonly OrderRef[], into: LockedRows): Promise<void> {
    for (const kind of new Set(refs.map((ref) => ref.kind))) {
      const ids = refs.filter((ref) => ref.kind === kind).map((ref) => ref.id);
      await this.books[kind].lockAll?.(trx, workspaceId, ids, into);
    }
  }

  /**
   * Applies a payment step to the locked order; answers the state machine's verdict (persisted when
   * allowed). The order's row is taken from `locked` when it was locked with others (lockAll).
   */
  async apply(
    trx: Executor,
    workspaceId: WorkspaceId,
    ref: OrderRef,
    step: PaymentStep,
    at: Date,
    writes: WorkspaceWrites,
    locked?: LockedRows,
  ): Promise<StepResult> {
    const result = await this.books[ref.kind].apply(trx, workspaceId, ref.id, step, at, writes, locked);
    if (!result) throw notFound(ref);
    return result;
  }

  /** The order's payment was reverted by a reorganisation: it is no longer paid. */
  revertPayment(
    trx: Executor,
    workspaceId: WorkspaceId,
    ref: OrderRef,
    at: Date,
    writes: WorkspaceWrites,
  ): Promise<void> {
    return this.books[ref.kind].revertPayment(trx, workspaceId, ref.id, at, writes);
  }
}

function notFound(ref: OrderRef): AppError {
  return new AppError('not_found', `No such ${ref.kind === 'invoice' ? 'invoice' : 'credit purchase'}.`);
}
