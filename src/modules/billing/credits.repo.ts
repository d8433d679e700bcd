import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
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

/** A change of a workspace's balance and reserve, recorded in its ledger as one entry. */
export interface CreditMovement {
  readonly kind: string;
  /** Taken from the balance (negative: added). */
  readonly charge: bigint;
  /** Added to the reserve (negative: released). */
  readonly reserveChange: bigint;
  readonly reference: string;
}

/**
 * Moves credits inside the caller's transaction and records each movement in the ledger, in the order
 * given. Returns false (changing nothing) when the available credits (balance − reserved) would not
 * cover what a movement takes from them, as left by the movements before it. Only that is checked:
 * capturing a reserved fee takes from the balance and the reserve alike and leaves the available
 * credits as they were, so it succeeds at 0 available — a payment that moved money is never held for
 * want of a free credit.
 *
 * Two statements whatever the number of movements (the payments of a block move credits together).
 * The account row is changed first, which locks it; only then are the ledger's positions read, by a
 * statement that sees every entry committed before that lock, and each entry's `balance_after` is the
 * balance as the movements up to it left it.
 */
export async function moveCredits(
  db: Executor,
  workspaceId: WorkspaceId,
  movements: readonly CreditMovement[],
): Promise<boolean> {
  if (movements.length === 0) return true;
  const charges = movements.map((movement) => movement.charge.toString());
  const reserves = movements.map((movement) => movement.reserveChange.toString());
  const { rows } = await sql<{ balance: bigint }>`
    WITH m AS (
      SELECT charge, reserve_change,
             coalesce(sum(charge + reserve_change) OVER (ORDER BY ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
        FROM unnest(${charges}::bigint[], ${reserves}::bigint[]) WITH ORDINALITY AS t(charge, reserve_change, ord)
    )
    UPDATE credit_accounts a
       SET balance = a.balance - (SELECT sum(charge) FROM m), reserved = a.reserved + (SELECT sum(reserve_change) FROM m)
     WHERE a.workspace_id = ${workspaceId}
       AND NOT EXISTS (SELECT 1 FROM m WHERE a.balance - a.reserved - m.before < greatest(m.charge + m.reserve_change, 0))
    RETURNING a.balance`.execute(db);
  const account = rows[0];
  if (!account) return false;
  const totalCharge = movements.reduce((sum, movement) => sum + movement.charge, 0n);
  let balance = account.balance + totalCharge;
  const balancesAfter = movements.map((movement) => (balance -= movement.charge).toString());
  await sql`
    INSERT INTO credit_ledger (workspace_id, kind, balance_change, reserve_change, reference, seq, balance_after)
    SELECT ${workspaceId}, t.kind, -t.charge, t.reserve_change, t.reference,
           (SELECT coalesce(max(seq), 0) FROM credit_ledger WHERE workspace_id = ${workspaceId}) + t.ord, t.balance_after
      FROM unnest(${movements.map((movement) => movement.kind)}::text[], ${charges}::bigint[], ${reserves}::bigint[],
                  ${movements.map((movement) => movement.reference)}::text[], ${balancesAfter}::bigint[])
           WITH ORDINALITY AS t(kind, charge, reserve_change, reference, balance_after, ord)
     ORDER BY t.ord`.execute(db);
  return true;
}

/** Credit movements written after a transaction's events (WorkspaceWrites.then), those of a workspace together. */
export const creditMovements = {
  async write(db: Executor, workspaceId: WorkspaceId, movements: readonly CreditMovement[]): Promise<void> {
    if (!(await moveCredits(db, workspaceId, movements)))
      throw new AppError('insufficient_credits', 'Not enough available credits for this change. See GET /billing.');
  },
};

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
