import pg from 'pg';
import { randomToken } from '../shared/ids.js';
import type { JobLogger } from './job.js';

/** Where the `jobs_notify` trigger (and `wakeRunners`) announce due jobs. */
export const JOBS_CHANNEL = 'jobs';
const MAX_RECONNECT_DELAY_MS = 30_000;
/** How long a probe notification may take to come back before the connection is taken for deaf. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * The dedicated connection that LISTENs for new jobs (the `jobs_notify` trigger) and calls `onWake`.
 * Reconnects with backoff when dropped and wakes once on every (re)connect, since notifications sent
 * while disconnected are lost. Never throws; the runner's poll covers the gaps.
 *
 * Through a transaction pooler (pgbouncer in transaction mode) LISTEN is accepted but notifications from
 * other sessions never arrive. So after LISTEN a probe is sent from another connection; if it does not
 * come back, the listener says so (DATABASE_DIRECT_URL is the remedy) and leaves the runner to its poll.
 */
export class JobNotifications {
  private client: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly onWake: () => void,
    private readonly logger: JobLogger,
  ) {}

  /** Resolves after the first attempt to listen, successful or not. */
  start(): Promise<void> {
    return this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    // Not from the pool: this connection is held for the runner's whole life.
    const client = new pg.Client(this.connection);
    client.on('error', (error) => this.dropped(client, error));
    client.on('end', () => this.dropped(client, undefined));
    client.on('notification', (message) => {
      if (message.channel === JOBS_CHANNEL) this.onWake();
    });
    let heard: boolean;
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}`);
      heard = await this.hears(client);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not listen for new jobs; polling until reconnected');
      await client.end().catch(() => {});
      this.scheduleReconnect();
      return;
    }
    if (this.stopped || !heard) {
      if (!heard)
        this.logger.warn(
          {},
          'notifications of new jobs do not reach this connection (is DATABASE_URL a transaction pooler such as pgbouncer? ' +
            'Set DATABASE_DIRECT_URL to a direct connection); new jobs are found by polling instead',
        );
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.failures = 0;
    this.onWake();
  }

  /** Whether a notification sent from another connection reaches `client`, which LISTENs. */
  private async hears(client: pg.Client): Promise<boolean> {
    const token = `probe:${randomToken(8)}`;
    const heard = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
      client.on('notification', (message) => {
        if (message.payload !== token) return;
        clearTimeout(timer);
        resolve(true);
      });
    });
    const sender = new pg.Client(this.connection);
    try {
      await sender.connect();
      await sender.query('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, token]);
    } finally {
      await sender.end().catch(() => {});
    }
    return heard;
  }

  private dropped(client: pg.Client, error: Error | undefined): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.logger.warn({ err: error }, 'lost the connection that listens for new jobs; reconnecting');
    client.end().catch(() => {});
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    const delay = Math.min(MAX_RECONNECT_DELAY_MS, 250 * 2 ** this.failures);
    this.failures += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, delay);
  }
}
