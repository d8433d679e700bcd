import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';

/** What an Idempotency-Key means for this request: new to us, a retry to replay, or a key used with another body. */
export type KeyClaim =
  { readonly kind: 'claimed' } | { readonly kind: 'replay'; readonly response: unknown } | { readonly kind: 'reused' };

export interface KeyToClaim {
  /** The use case the key belongs to ('invoices.create', 'credit_purchases.create'): keys of two never meet. */
  readonly scope: string;
  readonly key: string;
  readonly requestHash: Buffer;
  readonly expiresAt: Date;
}

/**
 * Claims the key inside the caller's transaction through the SQL function claim_idempotency_keys, the
 * one rule of every key (invoice creation's group commit claims its keys with it too): the key row is
 * inserted at once, so a concurrent request with the same key waits on it (a row lock, not a sleep)
 * until the first commits — then it replays the stored response — or rolls back, when it proceeds on
 * its own. A refusal that rolls back its transaction leaves the key unused.
 */
export async function claimIdempotencyKey(
  trx: Executor,
  workspaceId: WorkspaceId,
  claim: KeyToClaim,
): Promise<KeyClaim> {
  const { rows } = await sql<{ outcome: 'claimed' | 'replay' | 'reused'; response: unknown }>`
    SELECT outcome, response
      FROM claim_idempotency_keys(ARRAY[${workspaceId}]::text[], ${claim.scope}, ARRAY[${claim.key}]::text[],
                                  ARRAY[${claim.requestHash}]::bytea[], ARRAY[${claim.expiresAt}]::timestamptz[])`.execute(
    trx,
  );
  const { outcome, response } = rows[0]!;
  return outcome === 'replay' ? { kind: 'replay', response } : { kind: outcome };
}

/** Stores the response a retry with the key replays, in the transaction that claimed it. */
export async function storeIdempotentResponse(
  trx: Executor,
  workspaceId: WorkspaceId,
  claim: Pick<KeyToClaim, 'scope' | 'key'>,
  response: unknown,
): Promise<void> {
  await sql`
    SELECT store_idempotent_responses(ARRAY[${workspaceId}]::text[], ${claim.scope}, ARRAY[${claim.key}]::text[],
                                      ARRAY[${JSON.stringify(response)}]::jsonb[])`.execute(trx);
}

/**
 * A create under an Idempotency-Key, inside the caller's transaction: claims the key, then either makes
 * the thing (`create` resolves it and the response to keep for retries) or, for a retry, rebuilds it from
 * the kept response (`replay`). `reused`: the key came with another body, and nothing was made.
 */
export async function createIdempotently<T>(
  trx: Executor,
  workspaceId: WorkspaceId,
  claim: KeyToClaim,
  steps: { create(): Promise<{ made: T; response: unknown }>; replay(response: unknown): Promise<T> },
): Promise<{ kind: 'created' | 'replay'; made: T } | { kind: 'reused' }> {
  const claimed = await claimIdempotencyKey(trx, workspaceId, claim);
  if (claimed.kind === 'reused') return claimed;
  if (claimed.kind === 'replay') return { kind: 'replay', made: await steps.replay(claimed.response) };
  const { made, response } = await steps.create();
  await storeIdempotentResponse(trx, workspaceId, claim, response);
  return { kind: 'created', made };
}

/** Forgets idempotency keys past their retention. */
export function deleteExpiredIdempotencyKeys(db: Executor, now: Date) {
  return db.deleteFrom('idempotency_keys').where('expires_at', '<', now).executeTakeFirst();
}
