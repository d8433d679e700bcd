import type { JobHandler } from '../../jobs/index.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { AutomationId } from './automation.js';
import { RUN_AUTOMATION_JOB, type AutomationService } from './automation.service.js';

export { RUN_AUTOMATION_JOB };

/** One durable job per automation: runs its due occurrence, then sleeps until the next one. */
export function runAutomationHandler(automations: AutomationService): JobHandler {
  return async (job) => {
    const { automationId } = job.payload as { automationId: AutomationId };
    await automations.run(job.workspaceId as WorkspaceId, automationId);
  };
}
