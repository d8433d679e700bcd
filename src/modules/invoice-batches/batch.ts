import { Value, ValueErrorType } from '@sinclair/typebox/value';
import type { FieldRefusal } from '../../http/fastify-types.js';
import { AppError, type ErrorCode } from '../../shared/errors.js';
import type { CreateInvoiceInput } from '../invoices/index.js';
import { CREATE_FIELD_CODES, CreateInvoiceBody } from '../invoices/index.js';

export const MAX_BATCH_ITEMS = 25;
/** Batch bindings a workspace retains; the next one evicts the oldest (table invoice_batches). */
export const RETAINED_BATCHES = 1000;

/**
 * The idempotency key of item `index` of the batch sent with `batchKey`. Client keys are visible ASCII
 * without spaces, so a key with spaces can never collide with one a client chose.
 */
export function itemKey(batchKey: string, index: number): string {
  return `batch ${batchKey} #${index}`;
}

/**
 * Checks one item against the POST /invoices body schema, so that a bad item gets the error code
 * POST /invoices would answer, and the other items still go ahead.
 */
export function parseBatchItem(raw: unknown): CreateInvoiceInput {
  const first = Value.Errors(CreateInvoiceBody, raw).First();
  if (!first) return raw as CreateInvoiceInput;
  const field = first.path.split('/')[1] ?? '';
  if (first.type === ValueErrorType.ObjectAdditionalProperties) {
    throw new AppError('unknown_field', `Unknown field "${field}": see POST /invoices for the fields of an item.`);
  }
  const refusal = (CREATE_FIELD_CODES as Readonly<Record<string, FieldRefusal>>)[field] ?? 'invalid_request';
  if (typeof refusal === 'object') throw new AppError(refusal.code, refusal.message);
  throw new AppError(
    refusal,
    field
      ? `${field}: ${first.message.toLowerCase()}.`
      : 'Each item must be an object with the fields of POST /invoices.',
  );
}

export interface ItemError {
  readonly code: ErrorCode;
  readonly message: string;
}

export function itemError(error: unknown): ItemError {
  if (error instanceof AppError) return { code: error.code, message: error.message };
  throw error;
}
