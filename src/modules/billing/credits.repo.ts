import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { CreditKind, LedgerEntry } from './credits.js';

/** The reason recorded on a later workspace's empty grant, so its ledger explains its zero balance. */
const NOT_FIRST_REASON = "new workspace: credits are granted once per wallet, to the wallet's first workspace";
/** The reason recorded on a first workspace's empty grant when its client address had its grants for the day. */
const ADDRESS_LIMIT_REASON =
  'new workspace: no credits granted, as the address it was created from has had its free grants for today';

/**
 * Opens the workspace's credit account with its grant, recorded in the ledger. `firstOfWallet` says
 * whether it is its wallet's first workspace and `addressLimitReached` whether its client address had
 * used up its free grants (the caller decides the grant from them).
 */
export async function openAccount(
  db: Executor,
  workspaceId: WorkspaceId,
  opening: { grant: number; firstOfWallet: boolean; addressLimitReached: boolean },
): Promise<void> {
  await db
    .insertInto('credit_accounts')
    .values({ workspace_id: workspaceId, balance: BigInt(opening.grant), first_of_wallet: opening.firstOfWallet })
    .execute();
  await db
    .insertInto('credit_ledger')
    .values({
      workspace_id: workspaceId,
      kind: 'grant',
      balance_change: BigInt(opening.grant),
      reason: openingReason(opening),
    })
    .execute();
}

function openingReason(opening: { firstOfWallet: boolean; addressLimitReached: boolean }): string {
  if (!opening.firstOfWallet) return NOT_FIRST_REASON;
  return opening.addressLimitReached ? ADDRESS_LIMIT_REASON : 'new workspace';
}

export function findAccount(db: Executor, workspaceId: WorkspaceId) {
  return db
    .selectFrom('credit_accounts')
    .select(['balance', 'reserved', 'first_of_wallet'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/**
 * Moves credits inside the caller's transaction and records the movement in the ledger. Returns false
 * (changing nothing) when the available credits (balance − reserved) would not cover what the movement
 * takes from them. Only that is checked: capturing a reserved fee takes from the balance and the reserve
 * alike and leaves the available credits as they were, so it succeeds at 0 available — a payment that
 * moved money is never held for want of a free credit.
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
    .where((eb) => eb(eb('balance', '-', eb.ref('reserved')), '>=', availableTaken(movement)))
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

/** What a movement takes from the available credits; a release or a capture takes nothing. */
function availableTaken(movement: { charge: bigint; reserveChange: bigint }): bigint {
  const taken = movement.charge + movement.reserveChange;
  return taken > 0n ? taken : 0n;
}

/**
 * Adds credits inside the caller's transaction, with their ledger entry. Resolves the new balance and
 * reserve, or undefined (changing nothing) when the workspace has no credit account.
 */
export async function addCredits(
  db: Executor,
  workspaceId: WorkspaceId,
  credit: { kind: CreditKind; credits: bigint; reference?: string; reason?: string },
): Promise<{ balance: bigint; reserved: bigint } | undefined> {
  const account = await db
    .updateTable('credit_accounts')
    .set((eb) => ({ balance: eb('balance', '+', credit.credits) }))
    .where('workspace_id', '=', workspaceId)
    .returning(['balance', 'reserved'])
    .executeTakeFirst();
  if (!account) return undefined;
  await db
    .insertInto('credit_ledger')
    .values({
      workspace_id: workspaceId,
      kind: credit.kind,
      balance_change: credit.credits,
      reference: credit.reference ?? null,
      reason: credit.reason ?? null,
    })
    .execute();
  return account;
}

/**
 * Takes credits back inside the caller's transaction, with their ledger entry: at most the available
 * credits (balance − reserved), since reserved credits back open invoices and a balance never goes below
 * zero. Resolves the credits taken (0 when none were available or the workspace has no account).
 */
export async function takeBackCredits(
  db: Executor,
  workspaceId: WorkspaceId,
  debit: { kind: 'purchase.reverted'; credits: bigint; reference: string },
): Promise<bigint> {
  const account = await db
    .selectFrom('credit_accounts')
    .select(['balance', 'reserved'])
    .where('workspace_id', '=', workspaceId)
    .forUpdate()
    .executeTakeFirst();
  if (!account) return 0n;
  const available = account.balance - account.reserved;
  const taken = debit.credits < available ? debit.credits : available > 0n ? available : 0n;
  if (taken === 0n) return 0n;
  await db
    .updateTable('credit_accounts')
    .set((eb) => ({ balance: eb('balance', '-', taken) }))
    .where('workspace_id', '=', workspaceId)
    .execute();
  await db
    .insertInto('credit_ledger')
    .values({ workspace_id: workspaceId, kind: debit.kind, balance_change: -taken, reference: debit.reference })
    .execute();
  return taken;
}

/** Ledger entries, newest first, before position `before` when given. */
export async function listLedger(
  db: Executor,
  workspaceId: WorkspaceId,
  page: { limit: number; before: bigint | null },
): Promise<Omit<LedgerEntry, 'invoiceNumber'>[]> {
  const rows = await db
    .selectFrom('credit_ledger')
    .select(['seq', 'kind', 'balance_change', 'reserve_change', 'balance_after', 'reference', 'reason', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .$if(page.before !== null, (q) => q.where('seq', '<', page.before!))
    .orderBy('seq', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map((row) => ({
    seq: row.seq,
    kind: row.kind,
    amount: row.balance_change,
    reserveChange: row.reserve_change,
    balanceAfter: row.balance_after,
    reference: row.reference,
    reason: row.reason,
    createdAt: row.created_at,
  }));
}
