import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { timelineRoutes } from './timeline.routes.js';
import { TimelineService, type TimelineRetention } from './timeline.service.js';
import type { SnapshotSources } from './timeline.snapshot.js';

/** An invoice's timeline: its lifecycle records and delivery attempts, or an archived invoice's snapshot. */
export function timelineModule(deps: {
  readonly db: Db;
  readonly clock: Clock;
  readonly retention: TimelineRetention;
  readonly snapshots: SnapshotSources;
}) {
  const timeline = new TimelineService(deps);
  return { timeline, routes: timelineRoutes({ timeline }) };
}
