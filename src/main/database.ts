import type pg from 'pg';
import type { Config } from '../config/config.js';
import { openDatabase, type DatabaseHandle } from '../db/database.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';
import { migrate } from '../db/migrate.js';
import { ReadReplicas, useReadReplicas } from '../db/read-replicas.js';
import { within } from '../shared/within.js';

/** How long closing the pool may wait for connections still in use before shutdown goes on without it. */
const POOL_CLOSE_MS = 3_000;

export interface RunningDatabase extends DatabaseHandle {
  /** `embedded` when this process started its own server under DATA_DIR. */
  readonly kind: 'embedded' | 'external';
  /**
   * A direct session to the database (DATABASE_DIRECT_URL, else where the pool connects), for the job
   * runner's LISTEN connection: a transaction pooler would hand its server session to other clients.
   */
  readonly directConnection: pg.PoolConfig;
  readonly appliedMigrations: readonly string[];
  /** Embedded only: what was put outside DATA_DIR for the server's unprivileged user, and why. */
  readonly moved: readonly string[];
  /** Closes the pool (waiting at most POOL_CLOSE_MS for connections in use) and, when embedded, stops the server. */
  shutdown(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts the embedded server; then applies pending migrations. */
export async function startDatabase(config: Config, log: (line: string) => void): Promise<RunningDatabase> {
  let connection: pg.PoolConfig;
  let directConnection: pg.PoolConfig;
  let stopServer = async () => {};
  let moved: readonly string[] = [];
  if (config.databaseUrl) {
    connection = { connectionString: config.databaseUrl };
    directConnection = { connectionString: config.databaseDirectUrl ?? config.databaseUrl };
  } else {
    const server = await startEmbeddedPostgres({
      dataDir: config.dataDir,
      systemDir: config.embeddedSystemDir,
      database: 'invoice',
      log,
    });
    moved = server.moved;
    connection = server.connection;
    directConnection = connection;
    stopServer = server.stop;
  }
  const handle = openDatabase(connection);
  // Their first check runs before any read can go there; until one answers, reads stay on the primary.
  // A worker serves none of the reads they take (lists, search, exports, the feed), so it opens none.
  const replicas =
    config.databaseReadUrls.length > 0 && config.role !== 'worker'
      ? new ReadReplicas({ pool: handle.pool, connection }, config.databaseReadUrls, config.databaseReadMaxLagMs)
      : undefined;
  try {
    const appliedMigrations = await migrateThrough(directConnection);
    if (replicas) {
      await replicas.start();
      useReadReplicas(handle.db, replicas);
    }
    return {
      ...handle,
      kind: config.databaseUrl ? 'external' : 'embedded',
      directConnection,
      appliedMigrations,
      moved,
      shutdown: async () => {
        // Closing the pool waits for every connection to come back, and a job handler abandoned at stop may
        // never return its own: its session ends (its transaction rolled back) when the embedded server
        // stops or, on DATABASE_URL, when the process exits.
        await within(Promise.all([handle.close(), replicas?.stop()]), POOL_CLOSE_MS);
        await stopServer();
      },
    };
  } catch (error) {
    await replicas?.stop();
    await handle.close();
    await stopServer();
    throw error;
  }
}

/** Applies pending migrations over a connection of their own on the direct way to the database. */
async function migrateThrough(connection: pg.PoolConfig): Promise<string[]> {
  const { pool, close } = openDatabase(connection, 1);
  try {
    return await migrate(pool);
  } finally {
    await close();
  }
}
