import type { Db, Executor } from '../../db/database.js';
import { ALLOWED, refusedUntil, type Limit, type Verdict } from './rate-limit.js';
import { countHit, findLiveCounter } from './rate-limit.repo.js';

/**
 * How long a `check` that found the subject under its limit is trusted without asking the database
 * again. A subject blocked through another process may pass `check` here for at most this long; its
 * hits are still counted and refused exactly.
 */
export const CLEAR_RECHECK_MS = 1_000;
const MEMORY_MAX = 10_000;

type Memory = { readonly blockedUntil: number } | { readonly clearUntil: number };

/**
 * Counters kept in the database, so a limit holds across any number of server processes. A block, once
 * seen, is also remembered in this process until its window ends: a flood from a blocked subject costs
 * no database work.
 */
export class RateLimitService {
  private readonly memory = new Map<string, Memory>();

  constructor(private readonly deps: { db: Db; now?: () => number }) {}

  /** Counts one hit for the subject; refused when this hit is over the limit. */
  async hit(limit: Limit, subject: string): Promise<Verdict> {
    const now = this.now();
    const known = this.remembered(limit, subject, now);
    if (known && 'blockedUntil' in known) return blockedVerdict(known.blockedUntil, now);
    const counter = await countHit(this.deps.db, limit.name, subject, limit.windowSeconds);
    if (counter.hits <= limit.max) return ALLOWED;
    return this.block(limit, subject, refusedUntil(counter.window_ends, counter.now), now);
  }

  /**
   * Counts one hit inside the caller's transaction, bypassing this process's memory: the hit is undone
   * if the transaction rolls back, and concurrent hits on the subject wait for it to end (the counter's
   * row stays locked until then), so what the hit allows is decided exactly, on any number of processes.
   */
  async hitWithin(trx: Executor, limit: Limit, subject: string): Promise<Verdict> {
    const counter = await countHit(trx, limit.name, subject, limit.windowSeconds);
    return counter.hits <= limit.max ? ALLOWED : refusedUntil(counter.window_ends, counter.now);
  }

  /** Without counting: refused while the subject has used up its window. */
  async check(limit: Limit, subject: string): Promise<Verdict> {
    const now = this.now();
    const known = this.remembered(limit, subject, now);
    if (known) return 'blockedUntil' in known ? blockedVerdict(known.blockedUntil, now) : ALLOWED;
    const counter = await findLiveCounter(this.deps.db, limit.name, subject);
    if (!counter || counter.hits < limit.max) {
      this.remember(limit, subject, { clearUntil: now + CLEAR_RECHECK_MS });
      return ALLOWED;
    }
    return this.block(limit, subject, refusedUntil(counter.window_ends, counter.now), now);
  }

  private block(limit: Limit, subject: string, verdict: Verdict, now: number): Verdict {
    this.remember(limit, subject, { blockedUntil: now + verdict.retryAfterSeconds * 1000 });
    return verdict;
  }

  private remembered(limit: Limit, subject: string, now: number): Memory | undefined {
    const memory = this.memory.get(memoryKey(limit, subject));
    if (!memory) return undefined;
    const until = 'blockedUntil' in memory ? memory.blockedUntil : memory.clearUntil;
    return until > now ? memory : undefined;
  }

  private remember(limit: Limit, subject: string, memory: Memory): void {
    // Bounded: forgetting only means asking the database again.
    if (this.memory.size >= MEMORY_MAX) this.memory.clear();
    this.memory.set(memoryKey(limit, subject), memory);
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }
}

function memoryKey(limit: Limit, subject: string): string {
  return `${limit.name}\n${subject}`;
}

function blockedVerdict(blockedUntil: number, now: number): Verdict {
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((blockedUntil - now) / 1000)) };
}
