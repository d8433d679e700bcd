import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { collectPages, serveBarePages, type BareFeedServer } from './feed-ceiling.js';
import { median, PAGE_SIZE, percentile, readThroughApi, type Traversal } from './feed-reader.js';
import { firstReadInNewProcess } from './feed-reader-process.js';
import { changeFeed } from './scenarios/change-feed.js';
import { startServerProcess } from './server-process.js';
import { markdownTable } from './table.js';

const ROUNDS = 3;
/** What one reader should get through the feed on this machine. */
const TARGET_EVENTS_PER_SECOND = 50_000;

/**
 * `BENCH_ONLY=changes`: one reader pages through every event of a workspace, from `after=0` to the end,
 * following `nextCursor` with `limit=1000`, and parses each page as a client does. Two references in
 * the same run: the same reader taking the same pages straight from PostgreSQL (one SELECT per page,
 * rows parsed by `pg`; a workspace's ids are consecutive, so a page is a range of ids, as the service
 * reads it), what the API adds to reading the table; and the same reader taking the service's own
 * answers from a bare server that holds them in memory (bench/feed-ceiling.ts), the reader's bound.
 */
export async function runChangeFeedBench(count: number, progress: (line: string) => void): Promise<string[]> {
  progress(`change feed: starting the server process and creating ${count} invoices…`);
  const server = await startServerProcess(changeFeed);
  const client = new pg.Client(server.database);
  let bare: BareFeedServer | undefined;
  try {
    await client.connect();
    const workspaceId = /^\/w\/([^/]+)\//.exec(server.request.path)![1]!;
    const direct = () => readFromDatabase(client, workspaceId);
    // The first read after the creates is a row of its own: a reader catching up meets a service that
    // has not served the feed yet (code not optimized, no page read ahead), in a process of its own.
    progress('change feed: the first read (one pass each)…');
    const firstApi = await firstReadInNewProcess(server);
    const firstDirect = await direct();
    bare = await serveBarePages(await collectPages(server), server.request.path);
    const firstBare = await firstReadInNewProcess(bare);
    const [apiRuns, directRuns, bareRuns]: [Traversal[], Traversal[], Traversal[]] = [[], [], []];
    for (let round = 1; round <= ROUNDS; round += 1) {
      progress(`change feed: round ${round} of ${ROUNDS}…`);
      directRuns.push(await direct());
      apiRuns.push(await readThroughApi(server));
      bareRuns.push(await readThroughApi(bare));
    }
    const table = markdownTable(
      [
        'change feed run',
        'events',
        'pages',
        's',
        'events/s',
        'p50 page ms',
        'p99 page ms',
        'errors',
        'ratio to SELECT',
        'ratio to ceiling',
      ],
      [
        ...rowsAgainst(
          [
            'reference: SELECT pages from PostgreSQL',
            'ceiling: the same pages from a bare server',
            `GET /changes?limit=${PAGE_SIZE}`,
          ],
          [median(directRuns), median(bareRuns), median(apiRuns)],
        ),
        ...rowsAgainst(
          ['reference: the first read', 'ceiling: the first read', `GET /changes?limit=${PAGE_SIZE}: the first read`],
          [firstDirect, firstBare, firstApi],
        ),
      ],
    );
    return [
      `change feed: one reader, pages of ${PAGE_SIZE}, ${count} invoice.created events; the median of ${ROUNDS} rounds`,
      '',
      table,
      '',
      `- target for GET /changes: ${TARGET_EVENTS_PER_SECOND.toLocaleString('en')} events/s for one reader, the first read included`,
      "- the first read: the first pass of each, right after the creates, by a reader in a new process (SELECT: the runner's `pg` client); the rows above it are the median of the passes after it",
      "- ceiling: the service's answers, collected after its first read, sent by a bare `node:http` server from memory in the same rounds; what a reader cannot exceed here",
    ];
  } finally {
    await bare?.close();
    await client.end().catch(() => {});
    await server.stop();
  }
}

/** The SELECT reference's, the bare server's and the API's rows, each against the first two. */
function rowsAgainst(names: readonly [string, string, string], runs: readonly [Traversal, Traversal, Traversal]) {
  const rate = (run: Traversal) => run.events / run.seconds;
  const [reference, ceiling] = runs;
  return runs.map((run, index) => [
    names[index]!,
    run.events.toString(),
    run.pageMs.length.toString(),
    run.seconds.toFixed(2),
    Math.round(rate(run)).toString(),
    percentile(run.pageMs, 50).toFixed(1),
    percentile(run.pageMs, 99).toFixed(1),
    run.errors.toString(),
    (rate(run) / rate(reference)).toFixed(3),
    (rate(run) / rate(ceiling)).toFixed(3),
  ]);
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
