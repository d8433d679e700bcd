import { ConfigError, loadConfig } from '../config/config.js';
import { startDatabase } from './database.js';

/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded database) and exits. */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await startDatabase(config, () => {});
  const applied = database.appliedMigrations;
  console.log(
    applied.length > 0
      ? `applied ${applied.length} migration(s): ${applied.join(', ')}`
      : 'database schema is up to date',
  );
  await database.shutdown();
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError
      ? `configuration error: ${error.message}`
      : `migrate failed: ${(error as Error).message}`,
  );
  process.exit(1);
});
