/** What other modules may use of billing; everything else is the module's own. */
export { BillingService } from './billing.service.js';
export { LEDGER_KINDS, MAX_GRANT_CREDITS } from './credits.js';
export {
  addCredits,
  creditMovements,
  findAccount,
  moveCredits,
  openAccount,
  takeBackCredits,
  type CreditMovement,
} from './credits.repo.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { BillingView, LedgerPage } from './billing.schemas.js';
export { billingModule } from './billing.module.js';
