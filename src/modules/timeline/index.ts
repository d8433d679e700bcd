/** What other modules may use of timeline; everything else is the module's own. */
export { TimelineService } from './timeline.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { InvoiceTimelineView } from './timeline.schemas.js';
export { timelineModule } from './timeline.module.js';
