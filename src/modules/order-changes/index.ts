/** What other modules may use of order-changes: the fan-out of order change notifications to watchers. */
export {
  ORDER_CHANGES_CHANNEL,
  OrderWatchers,
  type OrderChangeFollower,
  type OrderWatcher,
  type OrderWatchEvent,
  type WorkspaceOrderWatcher,
} from './order-watchers.js';
export { waitForChange } from './wait-for-change.js';
export { OrderChanges } from './order-changes.js';
