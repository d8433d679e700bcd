import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { ProfileChanges } from './workspace.js';

const COLUMNS = [
  'id',
  'name',
  'description',
  'support_contact',
  'accent_color',
  'wallet_address',
  'created_at',
] as const;

export function findWorkspace(db: Executor, workspaceId: WorkspaceId) {
  return db.selectFrom('workspaces').select(COLUMNS).where('id', '=', workspaceId).executeTakeFirst();
}

/** Serialises the workspace's limited operations (key creation, …) across all server processes. */
export function lockWorkspace(db: Executor, workspaceId: WorkspaceId) {
  return db.selectFrom('workspaces').select(COLUMNS).where('id', '=', workspaceId).forUpdate().executeTakeFirst();
}

/** The advisory-lock class of "workspaces of one wallet" (the second key is a hash of the wallet). */
const WALLET_WORKSPACES_LOCK = 4_702_312;

/**
 * Serialises workspace creation of one wallet across all server processes, until the caller's
 * transaction ends. There is no wallet row to lock, so the lock is an advisory one on the wallet's hash
 * (two wallets sharing a hash only wait for each other).
 */
export async function lockWalletWorkspaces(db: Executor, wallet: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${WALLET_WORKSPACES_LOCK}, hashtext(${wallet}))`.execute(db);
}

export async function countWorkspacesOfWallet(db: Executor, wallet: string): Promise<number> {
  const row = await db
    .selectFrom('workspaces')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('wallet_address', '=', wallet)
    .executeTakeFirstOrThrow();
  return row.count;
}

export function listWorkspacesOfWallet(db: Executor, wallet: string) {
  return db
    .selectFrom('workspaces')
    .select(COLUMNS)
    .where('wallet_address', '=', wallet)
    .orderBy('created_at')
    .execute();
}

export function insertWorkspace(
  db: Executor,
  workspace: { id: WorkspaceId; name: string; description: string; wallet: string },
) {
  return db
    .insertInto('workspaces')
    .values({
      id: workspace.id,
      name: workspace.name,
      description: workspace.description,
      wallet_address: workspace.wallet,
    })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export function updateWorkspace(db: Executor, workspaceId: WorkspaceId, changes: ProfileChanges) {
  return db
    .updateTable('workspaces')
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.description !== undefined && { description: changes.description }),
      ...(changes.supportContact !== undefined && { support_contact: changes.supportContact }),
      ...(changes.accentColor !== undefined && { accent_color: changes.accentColor }),
    })
    .where('id', '=', workspaceId)
    .returning(COLUMNS)
    .executeTakeFirst();
}
