/** What other modules may use of statements; everything else is the module's own. */
export { statementRoutes } from './statement.routes.js';
export { StatementService } from './statement.service.js';
