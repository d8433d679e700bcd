import { ConfigError, loadConfig } from '../src/config/config.js';
import { startDatabase } from '../src/main/database.js';
import { parseCreditsCommand, runGrant } from '../src/main/credits-command.js';
import { createServices } from '../src/main/services.js';
import { systemClock } from '../src/shared/clock.js';

/**
 * `npm run credits -- grant <workspace-id> <credits> --reason "<why>"`: the operator grants credits by
 * hand. Opens the database as `npm start` does — DATABASE_URL, or the embedded PostgreSQL in DATA_DIR
 * (which refuses while the service itself runs on that DATA_DIR: stop it first, or use DATABASE_URL).
 */
async function main(): Promise<void> {
  const parsed = parseCreditsCommand(process.argv.slice(2));
  if (!parsed.ok) {
    console.error(parsed.error);
    process.exit(2);
  }
  const config = loadConfig();
  const database = await startDatabase(config, () => {});
  try {
    const outcome = await runGrant(createServices(config, database.db, systemClock).billing, parsed.command);
    (outcome.exitCode === 0 ? console.log : console.error)(outcome.message);
    process.exitCode = outcome.exitCode;
  } finally {
    await database.shutdown();
  }
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError
      ? `configuration error: ${error.message}`
      : `credits failed: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
