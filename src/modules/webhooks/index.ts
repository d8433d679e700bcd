export { TEST_EVENT_TYPE } from './webhook.js';
export { queueWebhookDelivery, type WebhookEventInput } from './webhook.delivery.js';
export type { WebhookEventLookup } from './webhook.service.js';
