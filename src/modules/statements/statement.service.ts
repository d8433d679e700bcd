import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import {
  creditSummary,
  statementMonth,
  type CreditSummary,
  type PaidVolume,
  type StatementFacts,
} from './statement.js';
import { readStatementFacts } from './statement.repo.js';

export interface StatementServiceDeps {
  readonly db: Executor;
  readonly clock: Clock;
}

export interface Statement {
  readonly workspace: { readonly id: WorkspaceId; readonly name: string };
  readonly month: string;
  readonly from: Date;
  readonly to: Date;
  /** The month has ended: its figures will not change. */
  readonly final: boolean;
  readonly generatedAt: Date;
  readonly invoices: {
    readonly created: number;
    readonly paid: number;
    readonly cancelled: number;
    readonly expired: number;
    readonly paidVolume: readonly PaidVolume[];
  };
  readonly credits: CreditSummary & { readonly movements: StatementFacts['movements'] };
}

/** GET /statement: a workspace's invoices and credits over one calendar month (UTC), measured now. */
export class StatementService {
  constructor(private readonly deps: StatementServiceDeps) {}

  /** `month` as the client sent it (`YYYY-MM`), or undefined for the current month. */
  async forMonth(workspaceId: WorkspaceId, month: string | undefined): Promise<Statement> {
    const now = this.deps.clock.now();
    const period = statementMonth(month, now);
    const facts = await readStatementFacts(this.deps.db, workspaceId, { ...period, now });
    if (!facts) throw new AppError('not_found', 'No such workspace.');
    return {
      workspace: { id: workspaceId, name: facts.workspaceName },
      month: period.month,
      from: period.from,
      to: period.to,
      final: period.to.getTime() <= now.getTime(),
      generatedAt: now,
      invoices: {
        created: facts.invoicesCreated,
        paid: facts.paid.reduce((sum, volume) => sum + volume.invoices, 0),
        cancelled: facts.invoicesCancelled,
        expired: facts.invoicesExpired,
        paidVolume: facts.paid,
      },
      credits: { ...creditSummary(facts), movements: facts.movements },
    };
  }
}
