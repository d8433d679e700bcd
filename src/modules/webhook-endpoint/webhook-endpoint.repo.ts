import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { WebhookEndpointTable } from './webhook-endpoint.table.js';

export type EndpointRow = Selectable<WebhookEndpointTable>;

export function findEndpoint(db: Executor, workspaceId: WorkspaceId) {
  return db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst();
}

/** Locks the endpoint row: configuration changes and test sends of a workspace are serialised on it. */
export function lockEndpoint(trx: Executor, workspaceId: WorkspaceId) {
  return trx
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .forUpdate()
    .executeTakeFirst();
}

export function insertEndpoint(
  trx: Executor,
  workspaceId: WorkspaceId,
  values: { url: string; enabled: boolean; secret: string; at: Date },
) {
  return trx
    .insertInto('webhook_endpoints')
    .values({
      workspace_id: workspaceId,
      url: values.url,
      enabled: values.enabled,
      secret: values.secret,
      secret_created_at: values.at,
      paused_at: values.enabled ? null : values.at,
      created_at: values.at,
      updated_at: values.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateEndpoint(
  trx: Executor,
  workspaceId: WorkspaceId,
  values: { url: string; enabled: boolean; secret: string; secretCreatedAt: Date; pausedAt: Date | null; at: Date },
) {
  return trx
    .updateTable('webhook_endpoints')
    .set({
      url: values.url,
      enabled: values.enabled,
      secret: values.secret,
      secret_created_at: values.secretCreatedAt,
      paused_at: values.pausedAt,
      updated_at: values.at,
    })
    .where('workspace_id', '=', workspaceId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Takes the workspace's one test send of the minute: sets `last_test_at` unless a test was sent less
 * than `intervalSeconds` ago. Resolves the seconds to wait when refused, undefined when taken.
 */
export async function takeTestSlot(
  trx: Executor,
  workspaceId: WorkspaceId,
  at: Date,
  intervalSeconds: number,
): Promise<number | undefined> {
  const endpoint = await lockEndpoint(trx, workspaceId);
  const last = endpoint?.last_test_at;
  if (last && at.getTime() - last.getTime() < intervalSeconds * 1000) {
    return Math.ceil(intervalSeconds - (at.getTime() - last.getTime()) / 1000);
  }
  await trx
    .updateTable('webhook_endpoints')
    .set({ last_test_at: at })
    .where('workspace_id', '=', workspaceId)
    .execute();
  return undefined;
}
