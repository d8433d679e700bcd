import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { timelineRoutes } from './timeline.routes.js';
import { TimelineService, type TimelineRetention } from './timeline.service.js';

/** An invoice's timeline: its lifecycle records and delivery attempts. */
export function timelineModule(deps: {
  readonly db: Db;
  readonly clock: Clock;
  readonly retention: TimelineRetention;
}) {
  const timeline = new TimelineService(deps);
  return { timeline, routes: timelineRoutes({ timeline }) };
}
