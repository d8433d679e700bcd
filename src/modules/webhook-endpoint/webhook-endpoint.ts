import { randomBytes } from 'node:crypto';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';

/** What PUT /webhook may change; an absent field keeps its value. */
export interface WebhookSettingsInput {
  readonly endpoint?: string;
  readonly enabled?: boolean;
  readonly rotate?: boolean;
}

/**
 * Makes the deliveries that waited while delivery was paused due now, in the caller's transaction, and
 * resolves how many. Supplied by the webhooks module: the endpoint knows when delivery resumes, the
 * deliveries are the webhooks module's.
 */
export type ResumeDeliveries = (trx: Executor, workspaceId: WorkspaceId, at: Date) => Promise<number>;

/** A signing secret: `whsec_` and 256 random bits in base64url. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
