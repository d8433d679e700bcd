import { createHash } from 'node:crypto';
import { AppError } from '../../shared/errors.js';

/**
 * The Idempotency-Key rule every create follows: the first request with a key makes the thing and its
 * response is kept; a retry with the same key and body replays that response; the same key with
 * another body is refused (422 `idempotency_key_reused`). Keys belong to a workspace and a scope (the
 * use case: 'invoices.create', 'credit_purchases.create', …), so keys of two scopes never meet.
 */

/** Idempotency keys outlive the longest payment window (5 days). */
export const IDEMPOTENCY_TTL_SECONDS = 7 * 24 * 3600;

/** SHA-256 of the body with sorted keys: the same request, however its JSON is spelled. */
export function requestHash(body: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(body)).digest();
}

/**
 * JSON with object keys sorted. Iterative, with an explicit stack: a batch item may be nested as deep
 * as the body limit allows (it fails alone, but the batch is still hashed), far past the call stack.
 */
function canonicalJson(root: unknown): string {
  const out: string[] = [];
  // Popped from the end: a value still to write, or text to copy as it is.
  const pending: ({ value: unknown } | string)[] = [{ value: root }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next === 'string') {
      out.push(next);
      continue;
    }
    const { value } = next;
    if (Array.isArray(value)) {
      pending.push(']');
      for (let index = value.length - 1; index >= 0; index--) {
        pending.push({ value: value[index] });
        if (index > 0) pending.push(',');
      }
      pending.push('[');
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      pending.push('}');
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, item] = entries[index]!;
        pending.push({ value: item });
        pending.push(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`);
      }
      pending.push('{');
    } else {
      // Like JSON.stringify: nothing for undefined (only in arrays, which never hold it after JSON.parse).
      out.push(JSON.stringify(value) ?? '');
    }
  }
  return out.join('');
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,128}$/;

/** Idempotency-Key: required, 8–128 visible ASCII characters. */
export function checkIdempotencyKey(value: string | string[] | undefined): string {
  if (value === undefined || value === '') {
    throw new AppError(
      'idempotency_key_missing',
      'Send an Idempotency-Key header (8–128 characters): a new one for each thing you create, the same one when retrying.',
    );
  }
  if (Array.isArray(value) || !IDEMPOTENCY_KEY.test(value)) {
    throw new AppError('invalid_idempotency_key', 'Idempotency-Key must be 8 to 128 visible ASCII characters.');
  }
  return value;
}
