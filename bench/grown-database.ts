import pg from 'pg';
import { readThroughApi, median as medianTraversal, type Traversal } from './feed-reader.js';
import { sendLoad, type Measurement } from './load.js';
import type { BenchRequest } from './scenario.js';
import { feedOnEmptyDatabase, feedOnGrownDatabase } from './scenarios/grown-database.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import type { BenchSettings } from './settings.js';
import { markdownTable } from './table.js';

const ROUNDS = 3;
/** docs/performance.md: a grown database keeps each rate within 20 % of an empty one's. */
const TARGET_RATIO = 0.8;

interface Side {
  readonly name: string;
  readonly server: ServerProcess;
  readonly feed: Traversal[];
  readonly creates: Measurement[];
}

/**
 * `BENCH_ONLY=grown`: does the service slow down as its database grows? The same service on an empty
 * database and on one that also holds BENCH_GROWN_EVENTS events of other workspaces (built once in
 * BENCH_GROWN_DIR, kept between runs), measured in turn in each round of the same run: one reader paging
 * its workspace's BENCH_CHANGE_EVENTS events, then invoice creates under load. The empty database is the
 * reference. Also prints what an invoice costs in bytes, from the empty database's tables.
 */
export async function runGrownDatabaseBench(settings: BenchSettings, progress: (line: string) => void) {
  const sides: Side[] = [];
  try {
    for (const [name, scenario] of [
      ['empty', feedOnEmptyDatabase],
      [`grown: ${settings.grown.events.toLocaleString('en')} more events`, feedOnGrownDatabase],
    ] as const) {
      progress(`grown database: starting the ${name} side (the first grown run writes its events: minutes)…`);
      sides.push({ name, server: await startServerProcess(scenario), feed: [], creates: [] });
    }
    for (const side of sides) {
      progress(`grown database: warming up the ${side.name} side…`);
      await readThroughApi(side.server, settings.changeEvents);
      await sendLoad(side.server.origin, createRequest(side.server.request), load(settings, settings.warmupSeconds));
    }
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const side of sides) {
        progress(`grown database: round ${round} of ${ROUNDS}, ${side.name}…`);
        side.feed.push(await readThroughApi(side.server, settings.changeEvents));
        side.creates.push(
          await sendLoad(
            side.server.origin,
            createRequest(side.server.request),
            load(settings, settings.durationSeconds),
          ),
        );
      }
    }
    const sizes = await bytesPerRow(sides[0]!.server);
    return report(settings, sides, sizes);
  } finally {
    await Promise.all(sides.map((side) => side.server.stop()));
  }
}

/** Creates in the workspace whose feed is read, with its key: each request a new invoice, never a replay. */
function createRequest(feed: BenchRequest): BenchRequest {
  return {
    method: 'POST',
    path: feed.path.replace(/\/changes$/, '/invoices'),
    headers: { ...feed.headers, 'content-type': 'application/json', 'idempotency-key': 'bench-grown-[<id>]' },
    body: JSON.stringify({ amount: '1.00' }),
    uniqueIds: true,
  };
}

const load = (settings: BenchSettings, durationSeconds: number) => ({
  connections: settings.connections,
  durationSeconds,
});

function report(settings: BenchSettings, sides: readonly Side[], sizes: readonly string[]): string[] {
  const feedRate = (side: Side) => {
    const run = medianTraversal(side.feed);
    return run.events / run.seconds;
  };
  const createRate = (side: Side) =>
    [...side.creates].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(side.creates.length / 2)]!
      .requestsPerSecond;
  const [empty] = sides;
  const failures = (side: Side) =>
    side.feed.reduce((sum, run) => sum + run.errors, 0) +
    side.creates.reduce((sum, run) => sum + run.unexpected + run.errors, 0);
  return [
    `grown database: the service on an empty database and on one grown by ${settings.grown.events.toLocaleString('en')} events of other workspaces (kept in ${settings.grown.directory}); the median of ${ROUNDS} rounds`,
    '',
    markdownTable(
      ['database', 'GET /changes events/s', 'ratio', 'POST /invoices req/s', 'ratio', 'failed'],
      sides.map((side) => [
        side.name,
        Math.round(feedRate(side)).toString(),
        (feedRate(side) / feedRate(empty!)).toFixed(3),
        Math.round(createRate(side)).toString(),
        (createRate(side) / createRate(empty!)).toFixed(3),
        failures(side).toString(),
      ]),
    ),
    '',
    `- one reader pages ${settings.changeEvents.toLocaleString('en')} events of its workspace (limit=1000); creates from ${settings.connections} connections for ${settings.durationSeconds} s`,
    `- target: each ratio to the empty database ≥ ${TARGET_RATIO}`,
    ...sizes,
  ];
}

/** Bytes per row, indexes and TOAST included, of the tables an invoice writes to, on the empty side. */
async function bytesPerRow(server: ServerProcess): Promise<string[]> {
  if (!server.database) return [];
  const client = new pg.Client(server.database);
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; rows: string; bytes: string }>(`
      SELECT name, rows, bytes FROM (VALUES
        ('invoices', (SELECT count(*) FROM invoices), pg_total_relation_size('invoices')),
        ('events', (SELECT count(*) FROM events),
          -- A partitioned table stores nothing itself: its partitions hold the rows and the indexes.
          (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('events'))),
        ('idempotency_keys', (SELECT count(*) FROM idempotency_keys), pg_total_relation_size('idempotency_keys'))
      ) t(name, rows, bytes)`);
    return [
      `- bytes per row, indexes included, after the run's creates: ${rows
        .map((row) => `${row.name} ${Math.round(Number(row.bytes) / Math.max(1, Number(row.rows)))} (${row.rows} rows)`)
        .join(', ')}`,
    ];
  } finally {
    await client.end();
  }
}
