import type pg from 'pg';
import type { Config } from '../config/config.js';
import { openDatabase, type DatabaseHandle } from '../db/database.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';
import { migrate } from '../db/migrate.js';

export interface RunningDatabase extends DatabaseHandle {
  /** `embedded` when this process started its own server under DATA_DIR. */
  readonly kind: 'embedded' | 'external';
  /** Where the pool connects; the job runner's LISTEN connection goes there too. */
  readonly connection: pg.PoolConfig;
  readonly appliedMigrations: readonly string[];
  /** Closes the pool and, when embedded, stops the server. */
  shutdown(): Promise<void>;
}

/** Connects to DATABASE_URL, or starts the embedded server; then applies pending migrations. */
export async function startDatabase(config: Config, log: (line: string) => void): Promise<RunningDatabase> {
  let connection: pg.PoolConfig;
  let stopServer = async () => {};
  if (config.databaseUrl) {
    connection = { connectionString: config.databaseUrl };
  } else {
    const server = await startEmbeddedPostgres({ dataDir: config.dataDir, database: 'invoice', log });
    connection = server.connection;
    stopServer = server.stop;
  }
  const handle = openDatabase(connection);
  try {
    const appliedMigrations = await migrate(handle.pool, undefined, { publicBaseUrl: config.publicBaseUrl });
    return {
      ...handle,
      kind: config.databaseUrl ? 'external' : 'embedded',
      connection,
      appliedMigrations,
      shutdown: async () => {
        await handle.close();
        await stopServer();
      },
    };
  } catch (error) {
    await handle.close();
    await stopServer();
    throw error;
  }
}
