export {
  INVOICE_EVENT_TYPES,
  PAYMENT_INTENT_EVENT_TYPES,
  TRANSFER_EVENT_TYPES,
  type ReceivedTransferEventData,
  TIMELINE_RECORD_OF,
  WEBHOOK_EVENT_TYPES,
  type InvoiceEventData,
  type NewEvent,
  type TimelineEventKind,
} from './event.js';
export { append, findWebhookEvent } from './event.repo.js';
export { recentEventsOf } from './recent-events.js';
export { WorkspaceWrites, type LateWrites } from './workspace-writes.js';
export { GroupedWrites, type GroupedWritesOptions } from './grouped-writes.js';
export { EVENT_RETENTION_JOB } from './change-feed.jobs.js';
export { EVENT_EXAMPLES, EXAMPLE_WORKSPACE_ID } from './event.examples.js';
export { eventsModule } from './events.module.js';
