export interface BenchSettings {
  /** `all` (default), or one part alone (BENCH_ONLY): `http`, `changes`, `grown`, `webhooks`, `purchases` or `payments`. */
  readonly only: 'all' | 'http' | 'changes' | 'grown' | 'webhooks' | 'purchases' | 'payments';
  readonly connections: number;
  readonly durationSeconds: number;
  /** HTTP rounds: each measures every ceiling and scenario once, for durationSeconds. */
  readonly rounds: number;
  /** Load sent before each measured run and thrown away: JIT, pool connections, caches. */
  readonly warmupSeconds: number;
  readonly webhooks: WebhookBenchSettings;
  readonly purchases: PurchaseBenchSettings;
  /** Events one reader pages through `GET /changes` in each round; 0 skips the change-feed part. */
  readonly changeEvents: number;
  /** Invoices paid by each of x402 and a submitted transfer; 0 skips the payment part. */
  readonly payments: number;
  readonly grown: GrownDatabaseSettings;
}

export interface GrownDatabaseSettings {
  /** Events of other workspaces in the grown database, in whole workspaces of 10,000; 0 skips that part. */
  readonly events: number;
  /** Where the grown database is built once and kept between runs. */
  readonly directory: string;
}

export interface WebhookBenchSettings {
  /** Requests of the sender ceiling and events of each backlog run; 0 skips the webhook part. */
  readonly events: number;
  /** Workspaces of the multi-workspace backlog run, sharing `events` evenly; 1 skips that run. */
  readonly workspaces: number;
  /** Events per second written one at a time for the latency run. */
  readonly ratePerSecond: number;
  /** How long the latency run writes; 0 skips it. */
  readonly latencySeconds: number;
}

export interface PurchaseBenchSettings {
  /** Credit purchases paid and timed; 0 skips the purchase part. */
  readonly count: number;
  /** Seconds between blocks of the local chain, which the network's `blockTimeSeconds` says too. */
  readonly blockSeconds: number;
  /** The network's `confirmations`: a settlement counts once its block and `confirmations − 1` more are mined. */
  readonly confirmations: number;
}

/**
 * Payments are submitted this many block intervals apart (the golden ratio's fractional part): the k-th
 * falls at k × 0.618… of an interval, so submissions are spread evenly over the phase of the block
 * clock, and a block carries one settlement or two, never all of them.
 */
export const PURCHASE_SPACING_BLOCKS = (Math.sqrt(5) - 1) / 2;
/** Longest stretch over which the purchase part submits payments. */
const MAX_PURCHASE_SUBMITTING_SECONDS = 120;

type Env = Readonly<Record<string, string | undefined>>;

const PARTS = ['all', 'http', 'changes', 'grown', 'webhooks', 'purchases', 'payments'] as const;

/** Read once by the runner. The upper bounds keep a load test bounded whatever the environment says. */
export function loadSettings(env: Env): BenchSettings {
  const only = env['BENCH_ONLY']?.trim() || 'all';
  if (!(PARTS as readonly string[]).includes(only))
    throw new Error(`BENCH_ONLY must be one of ${PARTS.join(', ')}, got "${only}"`);
  const purchases = {
    count: integer(env, 'BENCH_PURCHASES', 20, 0, 100),
    blockSeconds: integer(env, 'BENCH_PURCHASE_BLOCK_SECONDS', 1, 1, 5),
    confirmations: integer(env, 'BENCH_PURCHASE_CONFIRMATIONS', 2, 1, 10),
  };
  const submitting = purchases.count * purchases.blockSeconds * PURCHASE_SPACING_BLOCKS;
  if (submitting > MAX_PURCHASE_SUBMITTING_SECONDS)
    throw new Error(
      `BENCH_PURCHASES × BENCH_PURCHASE_BLOCK_SECONDS would submit payments for ${Math.round(submitting)} s; at most ${MAX_PURCHASE_SUBMITTING_SECONDS} s`,
    );
  return {
    only: only as BenchSettings['only'],
    connections: integer(env, 'BENCH_CONNECTIONS', 32, 1, 256),
    durationSeconds: integer(env, 'BENCH_DURATION', 10, 1, 120),
    rounds: integer(env, 'BENCH_ROUNDS', 3, 1, 9),
    warmupSeconds: integer(env, 'BENCH_WARMUP', 2, 0, 30),
    webhooks: {
      // Every POST opens and closes a loopback connection (the ceiling sends 5 rounds): ~29,000 a run by
      // default. A backlog of 4,000 drains for a second or more, so the workers' start (their LISTEN
      // connection, the first claim) is a small part of it.
      events: integer(env, 'BENCH_WEBHOOK_EVENTS', 4000, 0, 5000),
      workspaces: integer(env, 'BENCH_WEBHOOK_WORKSPACES', 10, 1, 50),
      ratePerSecond: integer(env, 'BENCH_WEBHOOK_RATE', 20, 1, 100),
      latencySeconds: integer(env, 'BENCH_WEBHOOK_LATENCY_SECONDS', 10, 0, 60),
    },
    purchases,
    changeEvents: integer(env, 'BENCH_CHANGE_EVENTS', 20_000, 0, 100_000),
    payments: integer(env, 'BENCH_PAYMENTS', 50, 0, 100),
    grown: {
      events: integer(env, 'BENCH_GROWN_EVENTS', 10_000_000, 0, 50_000_000),
      directory: env['BENCH_GROWN_DIR']?.trim() || '.bench-data/grown',
    },
  };
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}
