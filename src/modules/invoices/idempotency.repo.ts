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
 * Claims the key inside the caller's transaction, with the outcomes create_invoice_group gives an invoice
 * key in SQL (new, replay, reused with another body): the key row is inserted at once, so a concurrent
 * request with the same key waits on it (a row lock, not a sleep) until the first commits — then it
 * replays the stored response — or rolls back, when it proceeds on its own. A refusal that rolls back
 * its transaction leaves the key unused.
 */
export async function claimIdempotencyKey(
  trx: Executor,
  workspaceId: WorkspaceId,
  claim: KeyToClaim,
): Promise<KeyClaim> {
  const inserted = await trx
    .insertInto('idempotency_keys')
    .values({
      workspace_id: workspaceId,
      scope: claim.scope,
      key: claim.key,
      request_hash: claim.requestHash,
      expires_at: claim.expiresAt,
    })
    .onConflict((conflict) => conflict.doNothing())
    .returning('key')
    .executeTakeFirst();
  if (inserted) return { kind: 'claimed' };
  const stored = await trx
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'response'])
    .where('workspace_id', '=', workspaceId)
    .where('scope', '=', claim.scope)
    .where('key', '=', claim.key)
    .executeTakeFirstOrThrow();
  return stored.request_hash.equals(claim.requestHash)
    ? { kind: 'replay', response: stored.response }
    : { kind: 'reused' };
}

/** Stores the response a retry with the key replays, in the transaction that claimed it. */
export async function storeIdempotentResponse(
  trx: Executor,
  workspaceId: WorkspaceId,
  claim: Pick<KeyToClaim, 'scope' | 'key'>,
  response: unknown,
): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ response: JSON.stringify(response) })
    .where('workspace_id', '=', workspaceId)
    .where('scope', '=', claim.scope)
    .where('key', '=', claim.key)
    .execute();
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
