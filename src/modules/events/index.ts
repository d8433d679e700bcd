export {
  INVOICE_EVENT_TYPES,
  PAYMENT_INTENT_EVENT_TYPES,
  TIMELINE_RECORD_OF,
  WEBHOOK_EVENT_TYPES,
  type EventData,
  type EventKind,
  type InvoiceEventData,
  type InvoiceSnapshot,
  type NewEvent,
  type PaymentIntentEventData,
  type TimelineEventKind,
  type WorkspaceEvent,
} from './event.js';
export { append, appendAll, findWebhookEvent } from './event.repo.js';
export { EVENT_RETENTION_JOB, eventRetentionHandler, scheduleEventRetention } from './change-feed.jobs.js';
export { changeFeedRoutes } from './change-feed.routes.js';
export { EVENT_EXAMPLES, EXAMPLE_WORKSPACE_ID } from './event.examples.js';
