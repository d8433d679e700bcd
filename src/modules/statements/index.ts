/** What other modules may use of statements; everything else is the module's own. */
export { StatementService } from './statement.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { StatementView } from './statement.schemas.js';
export { statementsModule } from './statements.module.js';
