import { sql } from 'kysely';
import type { Role } from '../../config/config.js';
import type { Executor } from '../../db/database.js';

/** Marks the process as seen now, registering it on its first call. */
export async function touchProcess(db: Executor, id: string, role: Role): Promise<void> {
  await db
    .insertInto('service_processes')
    .values({ id, role })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ seen_at: sql<Date>`now()` }))
    .execute();
}

export async function deleteProcess(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('service_processes').where('id', '=', id).execute();
}

/** Rows of processes unseen for `seconds`: they ended without deleting their own. */
export async function deleteUnseenProcesses(db: Executor, seconds: number): Promise<number> {
  const result = await db
    .deleteFrom('service_processes')
    .where('seen_at', '<', sql<Date>`now() - make_interval(secs => ${seconds})`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Processes in one of `roles` seen within the last `seconds`. */
export async function countLiveProcesses(db: Executor, roles: readonly Role[], seconds: number): Promise<number> {
  const row = await db
    .selectFrom('service_processes')
    .select(sql<number>`count(*)::int`.as('count'))
    .where('role', 'in', roles)
    .where('seen_at', '>=', sql<Date>`now() - make_interval(secs => ${seconds})`)
    .executeTakeFirstOrThrow();
  return row.count;
}
