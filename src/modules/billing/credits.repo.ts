import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';

/** Opens the workspace's credit account with its grant, recorded in the ledger. */
export async function openAccount(db: Executor, workspaceId: WorkspaceId, grant: number): Promise<void> {
  await db.insertInto('credit_accounts').values({ workspace_id: workspaceId, balance: BigInt(grant) }).execute();
  await db
    .insertInto('credit_ledger')
    .values({ workspace_id: workspaceId, kind: 'grant', balance_change: BigInt(grant), reference: 'new workspace' })
    .execute();
}

export function findAccount(db: Executor, workspaceId: WorkspaceId) {
  return db.selectFrom('credit_accounts').select(['balance', 'reserved']).where('workspace_id', '=', workspaceId).executeTakeFirst();
}
