import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import {
  OVERPAYMENT_LISTED_MS,
  REVERTED_LISTED_MS,
  VERIFICATION_DELAY_MS,
  issuesFrom,
  lowCreditThreshold,
  type Issue,
} from './health.js';
import { readHealthFacts } from './health.repo.js';

export interface HealthServiceDeps {
  readonly db: Executor;
  readonly clock: Clock;
  readonly successFeeCredits: number;
  /** WEBHOOK_RETRY_SCHEDULE, in seconds: the retry hint says how far apart the retries get. */
  readonly webhookRetrySchedule: readonly number[];
}

/** GET /issues: what needs the merchant's attention in a workspace, measured now (nothing is stored). */
export class HealthService {
  constructor(private readonly deps: HealthServiceDeps) {}

  async issues(workspaceId: WorkspaceId): Promise<{ issues: Issue[] }> {
    const facts = await readHealthFacts(this.deps.db, workspaceId, {
      creditThreshold: lowCreditThreshold(this.deps.successFeeCredits),
      submittedBefore: new Date(this.deps.clock.now().getTime() - VERIFICATION_DELAY_MS),
      overpaidAfter: new Date(this.deps.clock.now().getTime() - OVERPAYMENT_LISTED_MS),
      revertedAfter: new Date(this.deps.clock.now().getTime() - REVERTED_LISTED_MS),
    });
    if (!facts) throw new AppError('not_found', 'No such workspace.');
    return { issues: issuesFrom({ ...facts, longestRetrySeconds: Math.max(0, ...this.deps.webhookRetrySchedule) }) };
  }
}
