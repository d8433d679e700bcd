import pg from 'pg';

/**
 * One connection that sends statements without waiting for the answers of those before it (the
 * protocol's pipeline mode, each statement its own transaction). The server runs them back to back: a
 * statement written while another runs starts the moment that one commits, not a round trip and an
 * event-loop turn later. For a serial path in the database, such as a workspace's invoice groups.
 *
 * It connects on first use and again after a failure; statements in flight on a connection that fails
 * reject, and the caller decides what to send again.
 */
export class Pipeline {
  private client: Promise<pg.Client> | undefined;
  private closed = false;

  constructor(private readonly connection: pg.ClientConfig) {}

  async query<Row>(text: string, values: readonly unknown[]): Promise<Row[]> {
    const client = await this.connected();
    const result = await client.query<Row & pg.QueryResultRow>(text, values as unknown[]);
    return result.rows;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.then((open) => open.end()).catch(() => {});
  }

  private connected(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('the pipeline is closed'));
    if (this.client) return this.client;
    const client = new pg.Client({ ...this.connection, pipeline: true } as pg.ClientConfig);
    const forget = () => {
      if (this.client === connecting) this.client = undefined;
    };
    // A broken connection is replaced on the next statement; its own statements have rejected.
    client.on('error', forget);
    client.on('end', forget);
    const connecting = client.connect().then(
      () => client,
      (error: unknown) => {
        forget();
        throw error;
      },
    );
    this.client = connecting;
    return connecting;
  }
}
