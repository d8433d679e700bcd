import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { changeFeed } from './scenarios/change-feed.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { markdownTable } from './table.js';

/** Events per page: the largest `limit` the feed allows. */
const PAGE_SIZE = 1000;
const ROUNDS = 3;
/** What one reader should get through the feed on this machine. */
const TARGET_EVENTS_PER_SECOND = 50_000;

export interface Traversal {
  readonly events: number;
  readonly seconds: number;
  readonly pageMs: readonly number[];
  /** Pages that were not 200, and events whose id did not follow the one before. */
  readonly errors: number;
}

/**
 * `BENCH_ONLY=changes`: one reader pages through every event of a workspace, from `after=0` to the end,
 * following `nextCursor` with `limit=1000`, and parses each page as a client does. The reference is the
 * same reader taking the same pages straight from PostgreSQL (one SELECT per page, rows parsed by `pg`;
 * a workspace's ids are consecutive, so a page is a range of ids, as the service reads it), in the same
 * run: what the API adds to reading the table itself.
 */
export async function runChangeFeedBench(count: number, progress: (line: string) => void): Promise<string[]> {
  progress(`change feed: starting the server process and creating ${count} invoices…`);
  const server = await startServerProcess(changeFeed);
  const client = new pg.Client(server.database);
  try {
    await client.connect();
    const workspaceId = /^\/w\/([^/]+)\//.exec(server.request.path)![1]!;
    const api = () => readThroughApi(server);
    const direct = () => readFromDatabase(client, workspaceId);
    // The first read after the creates is a row of its own: a reader catching up meets a service that
    // has not served the feed yet (code not optimized, no page read ahead).
    progress('change feed: the first read (one pass each)…');
    await warmClient(server);
    const firstApi = await api();
    const firstDirect = await direct();
    const apiRuns: Traversal[] = [];
    const directRuns: Traversal[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      progress(`change feed: round ${round} of ${ROUNDS}…`);
      directRuns.push(await direct());
      apiRuns.push(await api());
    }
    const reference = median(directRuns);
    const measured = median(apiRuns);
    const row = (name: string, run: Traversal, against = reference) => [
      name,
      run.events.toString(),
      run.pageMs.length.toString(),
      run.seconds.toFixed(2),
      Math.round(run.events / run.seconds).toString(),
      percentile(run.pageMs, 50).toFixed(1),
      percentile(run.pageMs, 99).toFixed(1),
      run.errors.toString(),
      (run.events / run.seconds / (against.events / against.seconds)).toFixed(3),
    ];
    return [
      `change feed: one reader, pages of ${PAGE_SIZE}, ${count} invoice.created events; the median of ${ROUNDS} rounds`,
      '',
      markdownTable(
        [
          'change feed run',
          'events',
          'pages',
          's',
          'events/s',
          'p50 page ms',
          'p99 page ms',
          'errors',
          'ratio to reference',
        ],
        [
          row('reference: SELECT pages from PostgreSQL', reference),
          row(`GET /changes?limit=${PAGE_SIZE}`, measured),
          row('reference: the first read', firstDirect),
          row(`GET /changes?limit=${PAGE_SIZE}: the first read`, firstApi, firstDirect),
        ],
      ),
      '',
      `- target for GET /changes: ${TARGET_EVENTS_PER_SECOND.toLocaleString('en')} events/s for one reader, the first read included`,
      '- the first read: the first pass of each, right after the creates; the rows above it are the median of the passes after it',
    ];
  } finally {
    await client.end().catch(() => {});
    await server.stop();
  }
}

interface FeedPage {
  events: { id: string }[];
  nextCursor: string;
  hasMore: boolean;
}

/**
 * One GET /readyz, so that the reader's first page is not also its HTTP client's first request (about
 * 20 ms of the client's own start and a new connection): a merchant's feed reader is a running process.
 * It reads nothing of the feed.
 */
async function warmClient(server: ServerProcess): Promise<void> {
  const response = await fetch(`${server.origin}/readyz`);
  await response.arrayBuffer();
}

/** Pages through the feed of the server's workspace from the start, up to `maxEvents` events. */
export async function readThroughApi(server: ServerProcess, maxEvents = Infinity): Promise<Traversal> {
  const pageMs: number[] = [];
  let events = 0;
  let errors = 0;
  let cursor = '0';
  const started = performance.now();
  for (;;) {
    const pageStarted = performance.now();
    const response = await fetch(`${server.origin}${server.request.path}?after=${cursor}&limit=${PAGE_SIZE}`, {
      headers: server.request.headers,
    });
    if (response.status !== 200) {
      errors += 1;
      await response.arrayBuffer();
      break;
    }
    const page = (await response.json()) as FeedPage;
    pageMs.push(performance.now() - pageStarted);
    for (const event of page.events) {
      if (BigInt(event.id) !== BigInt(cursor) + 1n) errors += 1;
      cursor = event.id;
      events += 1;
    }
    if (!page.hasMore || events >= maxEvents) break;
  }
  return { events, seconds: (performance.now() - started) / 1000, pageMs, errors };
}

async function readFromDatabase(client: pg.Client, workspaceId: string): Promise<Traversal> {
  const pageMs: number[] = [];
  let events = 0;
  let errors = 0;
  let cursor = 0n;
  const started = performance.now();
  for (;;) {
    const pageStarted = performance.now();
    const { rows } = await client.query<{ id: string }>({
      name: 'bench-feed-page',
      text: `SELECT id, type, invoice_id, payment_intent_id, data, created_at FROM events
              WHERE workspace_id = $1 AND id > $2 AND id <= $2::bigint + ${PAGE_SIZE} ORDER BY id LIMIT ${PAGE_SIZE}`,
      values: [workspaceId, cursor.toString()],
    });
    pageMs.push(performance.now() - pageStarted);
    for (const row of rows) {
      if (BigInt(row.id) !== cursor + 1n) errors += 1;
      cursor = BigInt(row.id);
      events += 1;
    }
    if (rows.length < PAGE_SIZE) break;
  }
  return { events, seconds: (performance.now() - started) / 1000, pageMs, errors };
}

export function median(runs: Traversal[]): Traversal {
  return [...runs].sort((a, b) => a.events / a.seconds - b.events / b.seconds)[Math.floor(runs.length / 2)]!;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}
