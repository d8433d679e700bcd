import type { WorkspaceId } from '../../shared/ids.js';

/**
 * Where the triggers of notify_order_change and notify_workspace_wallet_change announce a change that can
 * make an order payable or not:
 * `<workspace id> <order id>` for an invoice or a credit purchase, `<workspace id>` for the workspace's wallet.
 */
export const ORDER_CHANGES_CHANNEL = 'order_changes';

/** Whoever is told what the listener of ORDER_CHANGES_CHANNEL hears, and whether it hears every change. */
export interface OrderChangeFollower {
  /** A notification: `<workspace id> <order id>`, or `<workspace id>` when any order of it may have changed. */
  changed(payload: string): void;
  /** Every change is heard from now on (changes made before may have been missed). */
  heard(): void;
  /** Changes may go unheard from now on. */
  deaf(): void;
}

/** What a watcher of one order hears: it changed (read it again), or changes may go unheard from now on. */
export type OrderWatchEvent = 'changed' | 'deaf';
export type OrderWatcher = (event: OrderWatchEvent) => void;
/**
 * What a watcher of every order of a workspace hears: 'changed' with the order's id, 'changed' without
 * one when any order of the workspace may have changed (read again whatever is shown), or 'deaf'.
 */
export type WorkspaceOrderWatcher = (event: OrderWatchEvent, orderId?: string) => void;

/**
 * Fans the notifications of ORDER_CHANGES_CHANNEL out to whoever watches one order (the event streams of
 * checkout pages) or every order of a workspace (the portal's invoice list), so that one listener per
 * process serves every open stream. The payload only says which order changed; watchers read the order
 * again. Watching is refused while the listener does not hear every change, and every watcher is told
 * when it stops hearing (then it falls back to polling).
 */
export class OrderWatchers implements OrderChangeFollower {
  /** Per workspace, per order id. */
  private readonly watchers = new Map<WorkspaceId, Map<string, Set<OrderWatcher>>>();
  /** Per workspace: those told of each of its orders. */
  private readonly workspaceWatchers = new Map<WorkspaceId, Set<WorkspaceOrderWatcher>>();
  private listening = false;

  /** Starts telling `watcher` of the order's changes; returns how to stop, or undefined while deaf. */
  watch(workspaceId: WorkspaceId, orderId: string, watcher: OrderWatcher): (() => void) | undefined {
    if (!this.listening) return undefined;
    let orders = this.watchers.get(workspaceId);
    if (!orders) this.watchers.set(workspaceId, (orders = new Map()));
    let set = orders.get(orderId);
    if (!set) orders.set(orderId, (set = new Set()));
    set.add(watcher);
    return () => {
      // Only the first call counts: the order's set may be another one by a later call.
      if (!set.delete(watcher) || set.size > 0) return;
      orders.delete(orderId);
      if (orders.size === 0) this.watchers.delete(workspaceId);
    };
  }

  /** Starts telling `watcher` of every change of the workspace's orders; how to stop, or undefined while deaf. */
  watchWorkspace(workspaceId: WorkspaceId, watcher: WorkspaceOrderWatcher): (() => void) | undefined {
    if (!this.listening) return undefined;
    let set = this.workspaceWatchers.get(workspaceId);
    if (!set) this.workspaceWatchers.set(workspaceId, (set = new Set()));
    set.add(watcher);
    return () => {
      if (set.delete(watcher) && set.size === 0) this.workspaceWatchers.delete(workspaceId);
    };
  }

  /** A notification: tells the watchers of the order it names, or of every order of the workspace. */
  changed(payload: string): void {
    const space = payload.indexOf(' ');
    const workspaceId = (space < 0 ? payload : payload.slice(0, space)) as WorkspaceId;
    const orderId = space < 0 ? undefined : payload.slice(space + 1);
    for (const watcher of [...(this.workspaceWatchers.get(workspaceId) ?? [])]) watcher('changed', orderId);
    const orders = this.watchers.get(workspaceId);
    if (!orders) return;
    const sets = orderId === undefined ? [...orders.values()] : [orders.get(orderId)];
    for (const set of sets) for (const watcher of [...(set ?? [])]) watcher('changed');
  }

  /** Every change is heard from now on; a change made while reconnecting was missed, so all read again. */
  heard(): void {
    this.listening = true;
    this.tellAll('changed');
  }

  /** Changes may go unheard from now on: new watches are refused, and open ones told. */
  deaf(): void {
    this.listening = false;
    this.tellAll('deaf');
  }

  private tellAll(event: OrderWatchEvent): void {
    for (const set of [...this.workspaceWatchers.values()]) for (const watcher of [...set]) watcher(event);
    for (const orders of [...this.watchers.values()])
      for (const set of [...orders.values()]) for (const watcher of [...set]) watcher(event);
  }
}
