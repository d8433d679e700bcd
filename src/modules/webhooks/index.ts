export { isWebhookEvent } from './webhook.js';
export { queueWebhookDelivery } from './webhook.delivery.js';
