import type pg from 'pg';
import type { WorkspaceId } from '../../shared/ids.js';
import { ChannelListener, type ListenerLogger } from '../../db/listener.js';
import {
  ORDER_CHANGES_CHANNEL,
  OrderWatchers,
  type OrderChangeFollower,
  type OrderWatcher,
  type WorkspaceOrderWatcher,
} from './order-watchers.js';

/**
 * The changes of orders as a process hears them: one listener on ORDER_CHANGES_CHANNEL tells the watchers
 * of single orders and of whole workspaces (checkout event streams, the portal's invoice list, x402
 * requests waiting for their settlement) and every follower (the x402 challenges' copies of order states).
 */
export class OrderChanges {
  private readonly watchers = new OrderWatchers();
  private readonly followers = new Set<OrderChangeFollower>([this.watchers]);
  private hearing = false;

  /**
   * The listener, which tells every follower each change; while it cannot hear (not yet started,
   * reconnecting, or behind a transaction pooler without DATABASE_DIRECT_URL) watches are refused and
   * every challenge reads the database. Start it in processes that serve HTTP.
   */
  listen(connection: pg.ClientConfig, logger: ListenerLogger): ChannelListener {
    const tell = (event: 'heard' | 'deaf') => {
      this.hearing = event === 'heard';
      for (const follower of [...this.followers]) follower[event]();
    };
    return new ChannelListener(
      connection,
      ORDER_CHANGES_CHANNEL,
      'changes of orders (payment links answer from the database meanwhile)',
      {
        onMessage: (payload) => {
          for (const follower of [...this.followers]) follower.changed(payload);
        },
        onListening: () => tell('heard'),
        onDeaf: () => tell('deaf'),
      },
      logger,
    );
  }

  /**
   * Tells `follower` what the listener hears from now on (it is told `heard` at once if the listener hears
   * every change now). Returns how to stop.
   */
  follow(follower: OrderChangeFollower): () => void {
    this.followers.add(follower);
    if (this.hearing) follower.heard();
    return () => void this.followers.delete(follower);
  }

  /**
   * Tells `watcher` of every committed change of the order (at least once; it reads the order again).
   * Returns how to stop watching, or undefined while the listener does not hear every change (the caller
   * polls instead).
   */
  watchOrder(workspaceId: WorkspaceId, orderId: string, watcher: OrderWatcher): (() => void) | undefined {
    return this.watchers.watch(workspaceId, orderId, watcher);
  }

  /**
   * As watchOrder, for every order of the workspace (invoices and credit purchases alike): `watcher` is
   * told the id of each order that changed, or no id when any of them may have.
   */
  watchWorkspace(workspaceId: WorkspaceId, watcher: WorkspaceOrderWatcher): (() => void) | undefined {
    return this.watchers.watchWorkspace(workspaceId, watcher);
  }
}
