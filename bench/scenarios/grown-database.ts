import { sql } from 'kysely';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Db } from '../../src/db/database.js';
import { recentEventsOf } from '../../src/modules/events/recent-events.js';
import { walletAddress } from '../../src/shared/ids.js';
import { startRealApp } from '../real-app.js';
import { feedServer } from './change-feed.js';
import type { Scenario } from '../scenario.js';
import { loadSettings } from '../settings.js';

/** Events of each other workspace of the grown database: 1,000 of them for 10 million events. */
const EVENTS_PER_OTHER_WORKSPACE = 10_000;
/** Other workspaces written per statement: a million events, so that the first build shows its progress. */
const WORKSPACES_PER_STATEMENT = 100;
const OTHER_WORKSPACE_PREFIX = 'ws_grown_';

/**
 * The servers of the grown-database part (bench/grown-database.ts): the real app with one workspace of
 * BENCH_CHANGE_EVENTS invoices created through the service, on an empty database, or on one that also
 * holds BENCH_GROWN_EVENTS events of other workspaces. That one is built once, in BENCH_GROWN_DIR, and
 * kept between runs; each run adds its own workspace (a new owner each time).
 */
export const feedOnEmptyDatabase = grownDatabaseScenario('empty');
export const feedOnGrownDatabase = grownDatabaseScenario('grown');

function grownDatabaseScenario(database: 'empty' | 'grown'): Scenario {
  return {
    name: `change feed and creates on the ${database} database`,
    measures: 'real app on the embedded PostgreSQL',
    // Writing ten million events takes minutes, once.
    readySeconds: database === 'grown' ? 3600 : undefined,
    async prepare() {
      const settings = loadSettings(process.env);
      const owner = walletAddress(privateKeyToAccount(generatePrivateKey()).address.toLowerCase());
      const real = await startRealApp(
        { NEW_WORKSPACE_CREDITS: '1000000000' },
        undefined,
        database === 'grown' ? path.resolve(settings.grown.directory) : undefined,
      );
      return feedServer(real, settings.changeEvents, owner, async (db, workspaceId) => {
        if (database === 'grown') await growTo(db, settings.grown.events, workspaceId);
        // This part measures the table: the reader's events are read from it, as after a restart, not
        // from the memory of the process that created them (RecentEvents).
        recentEventsOf(db)?.clear();
      });
    },
  };
}

/**
 * Makes the database hold `events` events of other workspaces, each a copy of a real `invoice.created`
 * of `template`'s workspace, unless an earlier run did. Their times are a day old; those workspaces have
 * no other rows, so retention never visits them.
 */
async function growTo(db: Db, events: number, template: string): Promise<void> {
  const workspaces = Math.ceil(events / EVENTS_PER_OTHER_WORKSPACE);
  // All of them counted (a few seconds): a database built for another BENCH_GROWN_EVENTS is built anew.
  const { rows } = await sql<{ built: number }>`
    SELECT count(*)::int AS built FROM events WHERE workspace_id LIKE ${`${OTHER_WORKSPACE_PREFIX}%`}`.execute(db);
  if (rows[0]?.built === workspaces * EVENTS_PER_OTHER_WORKSPACE) return;
  await sql`DELETE FROM events WHERE workspace_id LIKE ${`${OTHER_WORKSPACE_PREFIX}%`}`.execute(db);
  const data = await sql<{ data: string }>`
    SELECT data::text AS data FROM events WHERE workspace_id = ${template} ORDER BY id LIMIT 1`.execute(db);
  for (let from = 0; from < workspaces; from += WORKSPACES_PER_STATEMENT) {
    const to = Math.min(from + WORKSPACES_PER_STATEMENT, workspaces) - 1;
    console.error(`grown database: writing the events of other workspaces ${from + 1}–${to + 1} of ${workspaces}…`);
    await sql`
      INSERT INTO events (workspace_id, id, type, invoice_id, data, created_at)
      SELECT ${OTHER_WORKSPACE_PREFIX} || lpad(w::text, 6, '0'), n, 'invoice.created',
             'inv_grown_' || w || '_' || n, ${data.rows[0]!.data}::json,
             now() - interval '1 day' + n * interval '1 ms'
        FROM generate_series(${from}::int, ${to}::int) w, generate_series(1, ${EVENTS_PER_OTHER_WORKSPACE}::int) n`.execute(
      db,
    );
  }
  // A database that grew over months was vacuumed and analysed by autovacuum many times on the way; one
  // written in minutes has not been yet. This stands for that history, not for a step the service needs.
  await sql`VACUUM ANALYZE events`.execute(db);
}
