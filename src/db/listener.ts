import pg from 'pg';
import { randomToken } from '../shared/ids.js';

const MAX_RECONNECT_DELAY_MS = 30_000;
/** How long a deaf listener waits before it tries again (a pooler stays deaf; a slow start does not). */
const DEAF_RETRY_MS = 60_000;
/** TCP keepalive on the held connection, so that a peer gone without a word is noticed in about a minute. */
const KEEPALIVE_DELAY_MS = 10_000;
/** How long a probe notification may take to come back before the connection is taken for deaf. */
const PROBE_TIMEOUT_MS = 2_000;

export interface ListenerLogger {
  warn(fields: object, message: string): void;
}

export interface ListenerHandlers {
  /** A notification on the channel (never the listener's own probe). */
  onMessage(payload: string): void;
  /**
   * Listening and heard its probe: from now on every notification arrives. Called again after each
   * reconnect, because notifications sent while disconnected are lost.
   */
  onListening(): void;
  /** Not listening any more (dropped, or deaf behind a transaction pooler): notifications may be missed. */
  onDeaf?(): void;
}

/**
 * A dedicated connection that LISTENs on one channel. Reconnects with backoff when dropped. Never throws:
 * whoever relies on it has a fallback for the gaps (a poll, or no cache).
 *
 * Through a transaction pooler (pgbouncer in transaction mode) LISTEN is accepted but notifications from
 * other sessions never arrive. So after LISTEN a probe is sent from another connection; if it does not
 * come back, the listener says so once (DATABASE_DIRECT_URL is the remedy), stays deaf, and tries again
 * every minute (a probe lost to a slow start is not taken for a pooler for good).
 */
export class ChannelListener {
  private client: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;
  private saidDeaf = false;

  constructor(
    private readonly connection: pg.ClientConfig,
    private readonly channel: string,
    /** What the notifications are about, for the warnings: "new jobs". */
    private readonly about: string,
    private readonly handlers: ListenerHandlers,
    private readonly logger: ListenerLogger,
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
    if (client) this.handlers.onDeaf?.();
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    // Not from the pool: this connection is held for the listener's whole life.
    const client = new pg.Client({
      ...this.connection,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    });
    const probe = `probe:${randomToken(8)}`;
    client.on('error', (error) => this.dropped(client, error));
    client.on('end', () => this.dropped(client, undefined));
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload !== probe) this.handlers.onMessage(message.payload ?? '');
    });
    let heard: boolean;
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      heard = await this.hears(client, probe);
    } catch (error) {
      this.logger.warn({ err: error }, `could not listen for ${this.about}; retrying`);
      await client.end().catch(() => {});
      this.scheduleReconnect();
      return;
    }
    if (this.stopped || !heard) {
      // Said once: behind a pooler every retry is deaf too, and the remedy does not change.
      if (!heard && !this.saidDeaf)
        this.logger.warn(
          {},
          `notifications of ${this.about} do not reach this connection (is DATABASE_URL a transaction pooler such as pgbouncer? ` +
            'Set DATABASE_DIRECT_URL to a direct connection)',
        );
      this.saidDeaf ||= !heard;
      await client.end().catch(() => {});
      if (!heard) this.retryLater(DEAF_RETRY_MS);
      return;
    }
    this.client = client;
    this.failures = 0;
    this.handlers.onListening();
  }

  /** Whether a notification sent from another connection reaches `client`, which LISTENs. */
  private async hears(client: pg.Client, probe: string): Promise<boolean> {
    const heard = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
      client.on('notification', (message) => {
        if (message.payload !== probe) return;
        clearTimeout(timer);
        resolve(true);
      });
    });
    const sender = new pg.Client(this.connection);
    try {
      await sender.connect();
      await sender.query('SELECT pg_notify($1, $2)', [this.channel, probe]);
    } finally {
      await sender.end().catch(() => {});
    }
    return heard;
  }

  private dropped(client: pg.Client, error: Error | undefined): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.handlers.onDeaf?.();
    this.logger.warn({ err: error }, `lost the connection that listens for ${this.about}; reconnecting`);
    client.end().catch(() => {});
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const delay = Math.min(MAX_RECONNECT_DELAY_MS, 250 * 2 ** this.failures);
    this.failures += 1;
    this.retryLater(delay);
  }

  private retryLater(delayMs: number): void {
    if (this.stopped || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, delayMs);
    this.reconnectTimer.unref();
  }
}
