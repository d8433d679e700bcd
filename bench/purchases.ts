import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { PrivateKeyAccount } from 'viem/accounts';
import { startBlockWatcher, type BlockWatcher, type BlockWatcherStats } from './block-watcher.js';
import { signPurchaseAuthorization, startBenchChain, type OpenPurchase } from './purchase-chain.js';
import { PurchaseApi, startPurchaseService } from './purchase-service.js';
import { PURCHASE_SPACING_BLOCKS, type PurchaseBenchSettings } from './settings.js';
import { markdownTable } from './table.js';
import { latencyRow, monotonicMs, percentiles } from './timing.js';

/** Every wait of a run is bounded: a purchase that is never credited fails the bench instead of hanging it. */
const PHASE_TIMEOUT_MS = 120_000;
const QUERY_TIMEOUT_MS = 10_000;
/** How often the watcher asks anvil for the block number, and the runner reads the purchases. */
const POLL_MS = 10;
/** Paid first, one at a time, not reported: JIT, pool connections, the relayer's first nonce. */
const WARMUP_PURCHASES = 2;
/** The default packages' cheapest: 100 credits for 10 USDC. */
const PACKAGE = { id: 'starter', priceMicro: 10_000_000n } as const;
/** An authorization's validity: far more than a run takes. */
const VALID_SECONDS = 600;
/** Where purchases are paid (OPERATOR_WALLET); nobody holds its key. */
const OPERATOR_WALLET = `0x${'0b'.repeat(20)}` as const;

const HEADER = ['purchase run', 'purchases', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'ratio to block interval'];

type Progress = (line: string) => void;

/** A batch: its purchases, and the granularity both polls achieved while it ran. */
interface Paid {
  readonly samples: readonly Sample[];
  readonly watched: BlockWatcherStats;
  readonly creditedPollGapsMs: readonly number[];
}

/** One purchase of a measured batch, times in monotonic ms. */
interface Sample {
  readonly id: string;
  /** When the 202 of POST …/authorizations arrived. */
  readonly acceptedAt: number;
  /** When the runner's poll first read the purchase `paid`. */
  readonly creditedAt: number;
  /** `paid_at`, on the monotonic clock. */
  readonly paidAt: number | undefined;
  /** When the block that gave the settlement its confirmations was first seen. */
  readonly confirmedAt: number | undefined;
  readonly settlementBlock: bigint | undefined;
  /** Not paid by one succeeded settlement with one `purchase` ledger entry. */
  readonly wrong: boolean;
}

/**
 * The purchase part of `npm run bench`: credit purchases paid by EIP-3009 authorization on a local anvil
 * through the real app and workers, each timed from the block that confirmed its settlement to the
 * moment it reads `paid`. Resolves the report's lines (table and legend).
 */
export async function runPurchaseBench(settings: PurchaseBenchSettings, progress: Progress): Promise<string[]> {
  const { count, blockSeconds, confirmations } = settings;
  const blockMs = blockSeconds * 1000;
  const spacingMs = blockMs * PURCHASE_SPACING_BLOCKS;
  // Stopped in reverse order, once, by the end of the run or by Ctrl+C: anvil runs in a process group of
  // its own, so the terminal's SIGINT never reaches it, and a signal would skip its exit hook.
  const stops: (() => Promise<void>)[] = [];
  let stopped: Promise<void> | undefined;
  const stopAll = () =>
    (stopped ??= (async () => {
      for (const stop of stops.reverse()) await stop().catch(() => {});
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    progress(`purchases: ${signal}: stopping the service process and anvil…`);
    void stopAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    progress(`purchases: starting anvil (a block every ${blockSeconds} s), the test USDC and a payer…`);
    const chain = await startBenchChain(blockSeconds, PACKAGE.priceMicro * BigInt(count + WARMUP_PURCHASES));
    stops.push(chain.stop);
    progress('purchases: starting the service process (fresh PostgreSQL, app, workers)…');
    const service = await startPurchaseService({
      rpcUrl: chain.rpcUrl,
      relayerPrivateKey: chain.relayerPrivateKey,
      operatorWallet: OPERATOR_WALLET,
      confirmations,
      blockSeconds,
    });
    stops.push(service.stop);
    const watcher = await startBlockWatcher(chain.rpcUrl, POLL_MS);
    stops.push(watcher.stop);
    // Local and idle but for these reads: a query that hangs fails the run instead.
    const db = new pg.Client({ ...service.connection, query_timeout: QUERY_TIMEOUT_MS });
    await db.connect();
    stops.push(() => db.end());

    const api = new PurchaseApi(service);
    const bench = new PurchaseBench(api, db, watcher, chain.payer, service.workspaceId, confirmations);
    progress(`purchases: warming up (${WARMUP_PURCHASES} purchases paid one after the other)…`);
    for (let i = 0; i < WARMUP_PURCHASES; i++) await bench.pay(1, 0);
    progress(
      `purchases: ${count} purchases, one authorization every ${(spacingMs / 1000).toFixed(2)} s, ${confirmations} confirmation(s)…`,
    );
    return report(settings, await bench.pay(count, spacingMs));
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stopAll();
  }
}

class PurchaseBench {
  constructor(
    private readonly api: PurchaseApi,
    private readonly db: pg.Client,
    private readonly watcher: BlockWatcher,
    private readonly payer: PrivateKeyAccount,
    private readonly workspaceId: string,
    private readonly confirmations: number,
  ) {}

  /**
   * `count` new purchases, their authorizations signed first, then submitted `spacingMs` apart on a fixed
   * schedule while the runner reads which of them are `paid` every POLL_MS; resolves once every one is.
   */
  async pay(count: number, spacingMs: number): Promise<Paid> {
    const purchases: OpenPurchase[] = [];
    for (let i = 0; i < count; i++) purchases.push(await this.api.buy(PACKAGE.id));
    const bodies = await Promise.all(
      purchases.map((purchase) => signPurchaseAuthorization(this.payer, purchase, VALID_SECONDS)),
    );
    const ids = purchases.map((purchase) => purchase.id);
    this.watcher.resetStats();
    const start = monotonicMs();
    const abandon = new AbortController();
    const credited = this.creditedTimes(ids, start + count * spacingMs + PHASE_TIMEOUT_MS, abandon.signal);
    const acceptedAt = new Map<string, number>();
    const submitted = Promise.all(
      purchases.map(async (purchase, i) => {
        const wait = start + i * spacingMs - monotonicMs();
        if (wait > 0) await sleep(wait);
        await this.api.submitAuthorization(purchase.id, bodies[i]!);
        acceptedAt.set(purchase.id, monotonicMs());
      }),
    );
    try {
      await submitted;
    } catch (error) {
      // A refused payment is never credited: stop the poll rather than wait out its deadline.
      abandon.abort();
      await credited.catch(() => {});
      throw error;
    }
    const { creditedAt, gapsMs } = await credited;
    return {
      samples: await this.samples(ids, acceptedAt, creditedAt),
      watched: this.watcher.stats(),
      creditedPollGapsMs: gapsMs,
    };
  }

  /** Reads every POLL_MS (fixed schedule, own connection) which purchases are `paid`; notes when each first was. */
  private async creditedTimes(ids: readonly string[], deadline: number, abandoned: AbortSignal) {
    const creditedAt = new Map<string, number>();
    const start = monotonicMs();
    let last = start;
    const gapsMs: number[] = [];
    for (let tick = 1; creditedAt.size < ids.length; tick++) {
      if (abandoned.aborted) throw new Error('abandoned');
      const { rows } = await this.db.query<{ id: string }>(
        `SELECT id FROM credit_purchases WHERE workspace_id = $1 AND id = ANY($2) AND status = 'paid'`,
        [this.workspaceId, ids.filter((id) => !creditedAt.has(id))],
      );
      const at = monotonicMs();
      gapsMs.push(at - last);
      last = at;
      for (const { id } of rows) creditedAt.set(id, at);
      if (creditedAt.size === ids.length) break;
      if (at > deadline)
        throw new Error(
          `${ids.length - creditedAt.size} purchase(s) not paid ${PHASE_TIMEOUT_MS / 1000} s after the last submission`,
        );
      const wait = start + tick * POLL_MS - monotonicMs();
      if (wait > 0) await sleep(wait);
    }
    return { creditedAt, gapsMs };
  }

  /** What the database recorded for each purchase, joined with the times the runner noted. */
  private async samples(
    ids: readonly string[],
    acceptedAt: ReadonlyMap<string, number>,
    creditedAt: ReadonlyMap<string, number>,
  ): Promise<Sample[]> {
    const { rows } = await this.db.query<{
      id: string;
      paid_at: Date | null;
      block_number: string | null;
      settlements: number;
      ledger_entries: number;
    }>(
      `SELECT p.id, p.paid_at,
              (SELECT max(i.block_number)::text FROM payment_intents i
                WHERE i.workspace_id = p.workspace_id AND i.credit_purchase_id = p.id AND i.status = 'succeeded') AS block_number,
              (SELECT count(*)::int FROM payment_intents i
                WHERE i.workspace_id = p.workspace_id AND i.credit_purchase_id = p.id AND i.status = 'succeeded') AS settlements,
              (SELECT count(*)::int FROM credit_ledger l
                WHERE l.workspace_id = p.workspace_id AND l.kind = 'purchase' AND l.reference = p.id) AS ledger_entries
         FROM credit_purchases p
        WHERE p.workspace_id = $1 AND p.id = ANY($2)`,
      [this.workspaceId, ids],
    );
    // paid_at is the service's wall clock (Date): moved onto the monotonic clock of every process here.
    // Date.now() is whole ms, so +0.5 centres the offset; it stays within a millisecond.
    const wallMinusMonotonic = Date.now() + 0.5 - monotonicMs();
    return rows.map((row) => {
      const block = row.block_number === null ? undefined : BigInt(row.block_number);
      const confirmedAt =
        block === undefined ? undefined : this.watcher.seenAt(block + BigInt(this.confirmations) - 1n);
      return {
        id: row.id,
        acceptedAt: acceptedAt.get(row.id)!,
        creditedAt: creditedAt.get(row.id)!,
        paidAt: row.paid_at ? row.paid_at.getTime() - wallMinusMonotonic : undefined,
        confirmedAt,
        settlementBlock: block,
        wrong: row.settlements !== 1 || row.ledger_entries !== 1 || confirmedAt === undefined,
      };
    });
  }
}

function report(settings: PurchaseBenchSettings, { samples, watched, creditedPollGapsMs }: Paid): string[] {
  const blockMs = settings.blockSeconds * 1000;
  const timed = samples.filter((sample) => !sample.wrong);
  const errors = samples.length - timed.length;
  const row = (name: string, values: readonly number[]) => latencyRow(name, values, errors, blockMs);
  const blocks = new Map<bigint, number>();
  for (const { settlementBlock } of timed)
    if (settlementBlock !== undefined) blocks.set(settlementBlock, (blocks.get(settlementBlock) ?? 0) + 1);
  const shared = [...blocks.values()].filter((settlements) => settlements > 1).length;
  const gaps = (values: readonly number[]) => {
    const { p99, max } = percentiles(values);
    return `gaps between answers p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms`;
  };
  const intervals = (values: readonly number[]) => {
    const { p50, max } = percentiles(values);
    const min = Math.min(...values);
    return `as seen by the watcher while the batch ran: p50 ${p50.toFixed(1)} ms, min ${min.toFixed(1)} ms, max ${max.toFixed(1)} ms`;
  };
  const toCredited = timed.map((sample) => sample.creditedAt - sample.confirmedAt!);
  const toPaidAt = timed.map((sample) => sample.paidAt! - sample.confirmedAt!);
  const total = timed.map((sample) => sample.creditedAt - sample.acceptedAt);
  const rows = [
    ['reference: one block interval', '–', blockMs.toFixed(1), '–', '–', '–', '1.000'],
    row('confirmation → credited', toCredited),
    row('confirmation → paid_at', toPaidAt),
    row('authorization accepted → credited', total),
  ];
  return [
    `purchases: ${samples.length} credit purchases paid by EIP-3009 authorization, one every ${PURCHASE_SPACING_BLOCKS.toFixed(3)} block intervals; anvil mining a block every ${settings.blockSeconds} s; confirmations ${settings.confirmations}; ${blocks.size} settlement blocks, ${shared} of them with two or more settlements`,
    '',
    markdownTable(HEADER, rows),
    '',
    `- block interval: ${settings.blockSeconds} s as configured; ${intervals(watched.blockIntervalsMs)}`,
    `- confirmation: when the block numbered (settlement block + ${settings.confirmations} − 1) was first seen by a watcher asking anvil \`eth_blockNumber\` every ${POLL_MS} ms on a connection of its own (${watched.polls} polls while the batch ran, ${gaps(watched.gapsMs)}; ${watched.sharedAnswers} blocks first seen together with the next; ${watched.failedPolls} failed polls)`,
    `- credited: when the runner's read of \`credit_purchases\` (every ${POLL_MS} ms, own connection; ${gaps(creditedPollGapsMs)}) first returned the purchase \`paid\`; its \`purchase\` ledger entry commits in the same transaction`,
    "- paid_at: the settlement job's own clock as it records the payment, taken before its transaction begins (wall clock, moved onto the monotonic clock to within 1 ms)",
    '- authorization accepted: when the 202 of POST …/credit-purchases/:id/authorizations arrived',
    '- ratio: p50 over the block interval; errors: purchases not paid by exactly one succeeded settlement with one `purchase` ledger entry, or whose confirming block was not seen; they are left out of the rows',
  ];
}
