/**
 * What other modules may use of authorization bindings: which order an accepted EIP-3009 authorization
 * pays, kept so a transfer that executes it pays that order only.
 */
export {
  authorizationKey,
  authorizationPays,
  orderNonceVersion,
  sameOrder,
  type AuthorizationKey,
  type Binding,
  type BoundOrder,
} from './authorization-binding.js';
export { bindAuthorization, findBinding } from './authorization-binding.repo.js';
