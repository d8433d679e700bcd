import type { WorkspaceId } from '../../shared/ids.js';
import type { OrderChangeFollower, OrderRef, OrderState } from '../payment-engine/index.js';

/** Enough for every open link a busy service is asked about; the oldest copies go first. */
const MAX_ENTRIES = 20_000;
/**
 * A copy is read again after this long even if no change was heard. A connection that died without a
 * word (a half-open TCP connection drops notifications and reports nothing) leaves copies stale for at
 * most this long; one read of an order every 10 s costs nothing next to the requests it spares.
 */
const MAX_AGE_MS = 10_000;

type Slot = { readonly state: OrderState; readonly until: number } | { readonly loading: Promise<OrderState> };

/**
 * Copies of order states for the 402 challenge of an order's x402 url, asked by every client before it
 * pays and answered without a query while the copy is good. A copy is good while a listener on
 * ORDER_CHANGES_CHANNEL hears every change, and for at most MAX_AGE_MS: a change drops it, and whenever
 * the listener is not known to hear (not started, reconnecting, or deaf behind a transaction pooler)
 * nothing is kept and every read goes to the database. What depends on the time (expiry, the timeout
 * offered) is judged on each request.
 */
export class OrderStateCache implements OrderChangeFollower {
  /** Per workspace, per order id. A slot is dropped by a change even while its read is in flight. */
  private readonly slots = new Map<WorkspaceId, Map<string, Slot>>();
  private size = 0;
  private listening = false;

  constructor(
    private readonly maxEntries = MAX_ENTRIES,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async read(workspaceId: WorkspaceId, ref: OrderRef, load: () => Promise<OrderState>): Promise<OrderState> {
    if (!this.listening) return load();
    const slot = this.slots.get(workspaceId)?.get(ref.id);
    if (slot && 'loading' in slot) return slot.loading;
    if (slot && slot.until > this.now()) return slot.state;
    const loading = load();
    this.put(workspaceId, ref.id, { loading });
    // Kept only if no change dropped the slot while it was read: the copy could predate that change.
    const stillOurs = () => {
      const current = this.slots.get(workspaceId)?.get(ref.id);
      return current !== undefined && 'loading' in current && current.loading === loading;
    };
    try {
      const state = await loading;
      if (stillOurs()) this.slots.get(workspaceId)!.set(ref.id, { state, until: this.now() + MAX_AGE_MS });
      return state;
    } catch (error) {
      if (stillOurs()) this.drop(workspaceId, ref.id);
      throw error;
    }
  }

  /** A notification on ORDER_CHANGES_CHANNEL: drops the order it names, or every order of the workspace. */
  changed(payload: string): void {
    const space = payload.indexOf(' ');
    if (space < 0) this.drop(payload as WorkspaceId);
    else this.drop(payload.slice(0, space) as WorkspaceId, payload.slice(space + 1));
  }

  /**
   * Drops the copy of one order, or of every order of the workspace: for a change this process has just
   * seen itself, before the notification of it arrives.
   */
  drop(workspaceId: WorkspaceId, orderId?: string): void {
    const orders = this.slots.get(workspaceId);
    if (!orders) return;
    if (orderId === undefined) {
      this.size -= orders.size;
      this.slots.delete(workspaceId);
      return;
    }
    if (!orders.delete(orderId)) return;
    this.size -= 1;
    if (orders.size === 0) this.slots.delete(workspaceId);
  }

  /** Every change is heard from now on; what was kept before may have missed some. */
  heard(): void {
    this.clear();
    this.listening = true;
  }

  /** Changes may go unheard from now on: keep nothing. */
  deaf(): void {
    this.listening = false;
    this.clear();
  }

  private put(workspaceId: WorkspaceId, orderId: string, slot: Slot): void {
    while (this.size >= this.maxEntries && this.slots.size > 0) this.drop(this.slots.keys().next().value!);
    let orders = this.slots.get(workspaceId);
    if (!orders) this.slots.set(workspaceId, (orders = new Map()));
    if (!orders.has(orderId)) this.size += 1;
    orders.set(orderId, slot);
  }

  private clear(): void {
    this.slots.clear();
    this.size = 0;
  }
}
