import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { AuthorizationKey, Binding, BoundOrder } from './authorization-binding.js';

/**
 * Binds the authorization to the order unless another order holds it already; answers the binding that
 * holds after the call. Inside the transaction that accepts the payment, so two orders racing for one
 * authorization cannot both take it (the primary key decides).
 */
export async function bindAuthorization(
  trx: Executor,
  key: AuthorizationKey,
  workspaceId: WorkspaceId,
  order: BoundOrder,
): Promise<Binding> {
  await trx
    .insertInto('payment_authorizations')
    .values({
      ...key,
      workspace_id: workspaceId,
      invoice_id: order.kind === 'invoice' ? order.id : null,
      credit_purchase_id: order.kind === 'credit_purchase' ? order.id : null,
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
  return (await findBinding(trx, key))!;
}

/** The order the authorization is bound to, if the service ever accepted it. */
export async function findBinding(db: Executor, key: AuthorizationKey): Promise<Binding | undefined> {
  const row = await db
    .selectFrom('payment_authorizations')
    .select(['workspace_id', 'invoice_id', 'credit_purchase_id'])
    .where('network', '=', key.network)
    .where('authorizer', '=', key.authorizer)
    .where('nonce', '=', key.nonce)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    workspaceId: row.workspace_id as WorkspaceId,
    order:
      row.invoice_id !== null
        ? { kind: 'invoice', id: row.invoice_id }
        : { kind: 'credit_purchase', id: row.credit_purchase_id! },
  };
}
