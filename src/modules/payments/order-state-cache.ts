import type { WorkspaceId } from '../../shared/ids.js';
import type { OrderRef } from './order.js';
import type { OrderState } from './orders.js';

/**
 * Where the triggers of migration 0020 announce a change that can make an order payable or not:
 * `<workspace id> <order id>` for an invoice or a credit purchase, `<workspace id>` for the workspace's wallet.
 */
export const ORDER_CHANGES_CHANNEL = 'order_changes';

/** Enough for every open link a busy service is asked about; the oldest copy goes first. */
const MAX_ENTRIES = 20_000;

type Slot = { readonly state: OrderState } | { readonly loading: Promise<OrderState> };

/**
 * Copies of order states for the 402 challenge of an order's x402 url, asked by every client before it
 * pays and answered without a query while the copy is good. A copy is good while a listener on
 * ORDER_CHANGES_CHANNEL hears every change: a change drops it, and whenever the listener is not known to
 * hear (not started, reconnecting, or deaf behind a transaction pooler) nothing is kept and every read
 * goes to the database. What depends on the time (expiry, the timeout offered) is judged on each request.
 */
export class OrderStateCache {
  /** Per workspace, per order id. A slot is dropped by a change even while its read is in flight. */
  private readonly slots = new Map<WorkspaceId, Map<string, Slot>>();
  private size = 0;
  private listening = false;

  constructor(private readonly maxEntries = MAX_ENTRIES) {}

  async read(workspaceId: WorkspaceId, ref: OrderRef, load: () => Promise<OrderState>): Promise<OrderState> {
    if (!this.listening) return load();
    const orders = this.slots.get(workspaceId);
    const slot = orders?.get(ref.id);
    if (slot) return 'state' in slot ? slot.state : slot.loading;
    const loading = load();
    this.put(workspaceId, ref.id, { loading });
    // Kept only if no change dropped the slot while it was read: the copy could predate that change.
    const stillOurs = () => {
      const current = this.slots.get(workspaceId)?.get(ref.id);
      return current !== undefined && 'loading' in current && current.loading === loading;
    };
    try {
      const state = await loading;
      if (stillOurs()) this.slots.get(workspaceId)!.set(ref.id, { state });
      return state;
    } catch (error) {
      if (stillOurs()) this.changed(`${workspaceId} ${ref.id}`);
      throw error;
    }
  }

  /** A notification on ORDER_CHANGES_CHANNEL: drops the order it names, or every order of the workspace. */
  changed(payload: string): void {
    const [workspaceId, orderId] = payload.split(' ') as [WorkspaceId, string | undefined];
    const orders = this.slots.get(workspaceId);
    if (!orders) return;
    if (orderId === undefined) {
      this.size -= orders.size;
      this.slots.delete(workspaceId);
    } else if (orders.delete(orderId)) {
      this.size -= 1;
    }
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
    if (this.size >= this.maxEntries) this.evictOldestWorkspace();
    let orders = this.slots.get(workspaceId);
    if (!orders) this.slots.set(workspaceId, (orders = new Map()));
    if (!orders.has(orderId)) this.size += 1;
    orders.set(orderId, slot);
  }

  /** Coarse but cheap: the workspace whose copies were made first goes whole. */
  private evictOldestWorkspace(): void {
    const oldest = this.slots.keys().next();
    if (!oldest.done) this.changed(oldest.value);
  }

  private clear(): void {
    this.slots.clear();
    this.size = 0;
  }
}
