import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';

export function saveReturnOrigins(db: Executor, workspaceId: WorkspaceId, origins: readonly string[]) {
  return db
    .updateTable('workspaces')
    .set({ return_origins: [...origins] })
    .where('id', '=', workspaceId)
    .returning('return_origins')
    .executeTakeFirst();
}

export function findReturnOrigins(db: Executor, workspaceId: WorkspaceId) {
  return db.selectFrom('workspaces').select('return_origins').where('id', '=', workspaceId).executeTakeFirst();
}
