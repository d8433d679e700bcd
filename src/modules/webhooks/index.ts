export { TEST_EVENT_TYPE, signedHeaders, webhookBody } from './webhook.js';
export { queueNewEventDeliveries, queueWebhookDelivery, type WebhookEventInput } from './webhook.delivery.js';
export { DELIVERIES_PER_WORKSPACE, WebhookDeliverer, resumeWaitingDeliveries } from './webhook.delivery.js';
export { SenderThread } from './webhook-sender.js';
export { DELIVER_WEBHOOK_JOB, deliverWebhookHandler } from './webhook.jobs.js';
export { DELIVERY_ERRORS, DELIVERY_HISTORY_DAYS } from './webhook.js';
export { CLAIM_WITH_DELIVERY, webhookDeliveryBacklog } from './webhook.repo.js';
export { WebhookService } from './webhook.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { DeliveryView, TestResult, WebhookSettingsView, WebhookView } from './webhook.schemas.js';
export { webhooksModule } from './webhooks.module.js';
