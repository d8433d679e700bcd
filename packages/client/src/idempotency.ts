import { randomUUID } from 'node:crypto';
import type { Middleware } from 'openapi-fetch';
import { IDEMPOTENT_CREATES } from './generated/operations.js';

/**
 * Gives every create that takes an Idempotency-Key one when the caller sent none: a new UUID per call.
 * It is set once, before the first attempt, so every retry of the call carries the same key and the
 * service answers a repeated create with the first one's result. A caller that may repeat the call
 * itself (after a crash, from a queue) passes its own key, stored with its order.
 */
export const idempotencyKeys: Middleware = {
  onRequest({ request, schemaPath }) {
    if (request.method !== 'POST' || !IDEMPOTENT_CREATES.has(schemaPath)) return undefined;
    if (!request.headers.has('idempotency-key')) request.headers.set('idempotency-key', randomUUID());
    return request;
  },
};
