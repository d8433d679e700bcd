import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { timelineRoutes } from './timeline.routes.js';
import { TimelineService } from './timeline.service.js';

/** An invoice's timeline: its lifecycle records and delivery attempts. */
export function timelineModule(deps: { readonly db: Db; readonly clock: Clock }) {
  const timeline = new TimelineService({ db: deps.db, clock: deps.clock });
  return { timeline, routes: timelineRoutes({ timeline }) };
}
