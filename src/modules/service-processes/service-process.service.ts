import os from 'node:os';
import type { Role } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import { randomToken } from '../../shared/ids.js';
import { FORGET_SECONDS, HEARTBEAT_MS, HTTP_ROLES, LIVE_SECONDS, type HttpProcessCount } from './service-process.js';
import { countLiveProcesses, deleteProcess, deleteUnseenProcesses, touchProcess } from './service-process.repo.js';

export interface ProcessRegistryDeps {
  readonly db: Db;
  readonly role: Role;
  /** Unique per start; by default host:pid:random, as job runners name themselves. */
  readonly id?: string;
  readonly heartbeatMs?: number;
}

/**
 * This process's row among the running service processes, and the count of the live ones that serve
 * HTTP. The count is reread with every heartbeat, so `httpProcesses()` never waits on the database; a
 * process that joins or leaves is seen within a heartbeat, one that dies without a word within
 * LIVE_SECONDS. When a heartbeat fails, the last count stands.
 */
export class ProcessRegistry implements HttpProcessCount {
  readonly id: string;
  private count = 1;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;

  constructor(private readonly deps: ProcessRegistryDeps) {
    this.id = deps.id ?? `${os.hostname()}:${process.pid}:${randomToken(6)}`;
  }

  /**
   * Registers the process and reads the count before it resolves (throws if the database fails then),
   * then keeps both fresh in the background; a failed heartbeat goes to `onError` and never throws.
   */
  async start(onError: (error: unknown) => void = () => {}): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      // A heartbeat slower than the interval is not overtaken by the next one.
      this.beating ??= this.refresh()
        .then(() => {}, onError)
        .finally(() => (this.beating = undefined));
    }, this.deps.heartbeatMs ?? HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Live processes that serve HTTP (this one included if it does); at least 1. */
  httpProcesses(): number {
    return this.count;
  }

  /** One heartbeat now: marks this process seen, forgets the long unseen, rereads the count. */
  async refresh(): Promise<number> {
    const { db, role } = this.deps;
    await touchProcess(db, this.id, role);
    await deleteUnseenProcesses(db, FORGET_SECONDS);
    this.count = Math.max(1, await countLiveProcesses(db, HTTP_ROLES, LIVE_SECONDS));
    return this.count;
  }

  /** Ends the heartbeat and deletes this process's row: the others take its share at their next beat. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    await deleteProcess(this.deps.db, this.id);
  }
}
