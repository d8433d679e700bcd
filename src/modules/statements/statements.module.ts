import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { statementRoutes } from './statement.routes.js';
import { StatementService } from './statement.service.js';

/** The monthly statement. */
export function statementsModule(deps: { readonly db: Db; readonly clock: Clock }) {
  const statements = new StatementService({ db: deps.db, clock: deps.clock });
  return { statements, routes: statementRoutes({ statements }) };
}
