import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';

/** Opens the workspace's credit account with its grant, recorded in the ledger. */
export async function openAccount(db: Executor, workspaceId: WorkspaceId, grant: number): Promise<void> {
  await db
    .insertInto('credit_accounts')
    .values({ workspace_id: workspaceId, balance: BigInt(grant) })
    .execute();
  await db
    .insertInto('credit_ledger')
    .values({ workspace_id: workspaceId, kind: 'grant', balance_change: BigInt(grant), reference: 'new workspace' })
    .execute();
}

export function findAccount(db: Executor, workspaceId: WorkspaceId) {
  return db
    .selectFrom('credit_accounts')
    .select(['balance', 'reserved'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/**
 * Moves credits inside the caller's transaction and records the movement in the ledger. Returns false
 * (changing nothing) when the balance would not cover the charge plus the reserve.
 */
export async function moveCredits(
  db: Executor,
  workspaceId: WorkspaceId,
  movement: { kind: string; charge: bigint; reserveChange: bigint; reference: string },
): Promise<boolean> {
  const updated = await db
    .updateTable('credit_accounts')
    .set((eb) => ({
      balance: eb('balance', '-', movement.charge),
      reserved: eb('reserved', '+', movement.reserveChange),
    }))
    .where('workspace_id', '=', workspaceId)
    .where((eb) =>
      eb(
        eb('balance', '-', eb.ref('reserved')),
        '>=',
        movement.charge + (movement.reserveChange > 0n ? movement.reserveChange : 0n),
      ),
    )
    .executeTakeFirst();
  if (updated.numUpdatedRows === 0n) return false;
  await db
    .insertInto('credit_ledger')
    .values({
      workspace_id: workspaceId,
      kind: movement.kind,
      balance_change: -movement.charge,
      reserve_change: movement.reserveChange,
      reference: movement.reference,
    })
    .execute();
  return true;
}
