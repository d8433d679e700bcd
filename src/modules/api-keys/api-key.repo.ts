import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ApiKeyId, WorkspaceId } from '../../shared/ids.js';

export interface NewApiKeyRow {
  readonly id: ApiKeyId;
  readonly name: string;
  readonly permissions: readonly string[];
  readonly recipientAddress: string;
  readonly secretHash: Buffer;
  readonly displayPrefix: string;
}

export function findKey(db: Executor, workspaceId: WorkspaceId, keyId: ApiKeyId) {
  return db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select([
      'api_keys.id',
      'api_keys.permissions',
      'api_keys.recipient_address',
      'api_keys.secret_hash',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'workspaces.wallet_address',
    ])
    .where('api_keys.workspace_id', '=', workspaceId)
    .where('api_keys.id', '=', keyId)
    .executeTakeFirst();
}

/** What a key's view shows: never the secret's hash. */
const VIEW_COLUMNS = [
  'id',
  'name',
  'permissions',
  'recipient_address',
  'display_prefix',
  'created_at',
  'last_used_at',
  'revoked_at',
] as const;

export function listKeys(db: Executor, workspaceId: WorkspaceId) {
  return db
    .selectFrom('api_keys')
    .select(VIEW_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .execute();
}

/** Counts that bound key creation, read while the caller holds the workspace row lock. */
export async function countKeysForLimits(db: Executor, workspaceId: WorkspaceId) {
  const row = await db
    .selectFrom('api_keys')
    .select([
      sql<number>`count(*) FILTER (WHERE revoked_at IS NULL)::int`.as('active'),
      sql<number>`count(*) FILTER (WHERE created_at > now() - interval '1 hour')::int`.as('lastHour'),
      sql<number>`count(*) FILTER (WHERE created_at > now() - interval '1 day')::int`.as('lastDay'),
      sql<Date | null>`min(created_at) FILTER (WHERE created_at > now() - interval '1 hour')`.as('oldestInHour'),
      sql<Date | null>`min(created_at) FILTER (WHERE created_at > now() - interval '1 day')`.as('oldestInDay'),
      sql<Date>`now()`.as('now'),
    ])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return row;
}

export function insertKey(db: Executor, workspaceId: WorkspaceId, key: NewApiKeyRow) {
  return db
    .insertInto('api_keys')
    .values({
      workspace_id: workspaceId,
      id: key.id,
      name: key.name,
      permissions: [...key.permissions],
      recipient_address: key.recipientAddress,
      secret_hash: key.secretHash,
      display_prefix: key.displayPrefix,
    })
    .returning(VIEW_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function revokeKey(db: Executor, workspaceId: WorkspaceId, keyId: ApiKeyId) {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: sql`coalesce(revoked_at, now())` })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', keyId)
    .returning(VIEW_COLUMNS)
    .executeTakeFirst();
}

/** Records use at most once a minute per key, so a busy key does not write on every request. */
export function touchKey(db: Executor, workspaceId: WorkspaceId, keyId: ApiKeyId) {
  return db
    .updateTable('api_keys')
    .set({ last_used_at: sql`now()` })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', keyId)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]),
    )
    .execute();
}
