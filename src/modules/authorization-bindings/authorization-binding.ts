import { isOrderNonce, orderNonce } from '../../shared/payment-request.js';
import type { WorkspaceId } from '../../shared/ids.js';

/**
 * An EIP-3009 authorization as the token knows it: one use per (authorizer, nonce) on a network.
 * Authorizer and nonce are lowercase hex.
 */
export interface AuthorizationKey {
  readonly network: string;
  readonly authorizer: string;
  readonly nonce: string;
}

/** An order as the payment engine names it (its OrderRef): an invoice or a credit purchase. */
export interface BoundOrder {
  readonly kind: 'invoice' | 'credit_purchase';
  readonly id: string;
}

/** The order an accepted authorization was bound to (payment_authorizations). */
export interface Binding {
  readonly workspaceId: WorkspaceId;
  readonly order: BoundOrder;
}

export function authorizationKey(network: string, authorization: { from: string; nonce: string }): AuthorizationKey {
  return { network, authorizer: authorization.from.toLowerCase(), nonce: authorization.nonce.toLowerCase() };
}

/** Which link version of the order a nonce was made for (1 … current), or undefined when none. */
export function orderNonceVersion(orderId: string, currentVersion: number, nonce: string): number | undefined {
  const wanted = nonce.toLowerCase();
  for (let version = currentVersion; version >= 1; version -= 1) {
    if (orderNonce(orderId, version) === wanted) return version;
  }
  return undefined;
}

/**
 * Whom a transfer executed by an authorization may pay: the order the authorization was bound to when
 * the service accepted it, else the order its nonce was made for (any link version: the money moved for
 * that order), else — a nonce of no order, unknown here — any order it fits.
 */
export function authorizationPays(
  nonce: string,
  bound: Binding | undefined,
  candidate: { readonly workspaceId: WorkspaceId; readonly order: BoundOrder; readonly linkVersion: number },
): boolean {
  if (bound) return bound.workspaceId === candidate.workspaceId && sameOrder(bound.order, candidate.order);
  if (isOrderNonce(nonce)) return orderNonceVersion(candidate.order.id, candidate.linkVersion, nonce) !== undefined;
  return true;
}

export function sameOrder(a: BoundOrder, b: BoundOrder): boolean {
  return a.kind === b.kind && a.id === b.id;
}
