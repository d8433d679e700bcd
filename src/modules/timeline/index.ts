/** What other modules may use of timeline; everything else is the module's own. */
export { timelineRoutes } from './timeline.routes.js';
export { TimelineService } from './timeline.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { InvoiceTimelineView } from './timeline.schemas.js';
