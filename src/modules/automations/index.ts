/** What other modules may use of automations; everything else is the module's own. */
export { AutomationService } from './automation.service.js';
export { RUN_AUTOMATION_JOB } from './automation.jobs.js';
export { pausedAutomations } from './automation.repo.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { AutomationPage, AutomationView, SchedulePreview } from './automation.schemas.js';
export { automationsModule } from './automations.module.js';
