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
