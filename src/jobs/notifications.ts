import pg from 'pg';
import type { JobLogger } from './job.js';

/** Where the `jobs_notify` trigger (and `wakeRunners`) announce due jobs. */
export const JOBS_CHANNEL = 'jobs';
const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * The dedicated connection that LISTENs for new jobs (the `jobs_notify` trigger) and calls `onWake`.
 * Reconnects with backoff when dropped and wakes once on every (re)connect, since notifications sent
 * while disconnected are lost. Never throws; the runner's poll covers the gaps.
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
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}`);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not listen for new jobs; polling until reconnected');
      await client.end().catch(() => {});
      this.scheduleReconnect();
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.failures = 0;
    this.onWake();
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
