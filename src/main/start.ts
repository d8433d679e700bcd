import { performance } from 'node:perf_hooks';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { buildApp } from '../http/app.js';
import { JobRunner } from '../jobs/index.js';
import { systemClock } from '../shared/clock.js';
import { startDatabase } from './database.js';
import { ensureDemoWorkspace, type DemoAccess } from './demo.js';
import { jobHandlers, scheduleRecurringJobs } from './jobs.js';
import { createServices } from './services.js';

/**
 * `npm start`: API and worker in one process, on the embedded PostgreSQL unless DATABASE_URL is set.
 * Prints where the portal is and, in the local demo, a working API key and a curl line.
 */
async function main(): Promise<void> {
  const started = performance.now();
  const config = loadConfig();
  const say = (line: string) => process.stdout.write(`${line}\n`);

  say(config.databaseUrl ? 'connecting to PostgreSQL (DATABASE_URL)…' : `starting the embedded PostgreSQL in ${config.dataDir} …`);
  const database = await startDatabase(config, () => {});
  if (database.appliedMigrations.length > 0) say(`applied ${database.appliedMigrations.length} database migration(s)`);

  const services = createServices(config, database.db, systemClock);
  const app = await buildApp(services);
  const worker = new JobRunner({
    db: database.db,
    connection: database.connection,
    handlers: jobHandlers(services),
    logger: app.log,
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`\n${signal}: shutting down…`);
    const timer = setTimeout(() => process.exit(1), 30_000).unref();
    await app.close().catch(() => {});
    await worker.stop();
    await database.shutdown().catch(() => {});
    clearTimeout(timer);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  await worker.start();
  await scheduleRecurringJobs(database.db);
  const demo = config.networks ? undefined : await ensureDemoWorkspace(services, config.dataDir);
  say(banner(config, demo, Math.round(performance.now() - started)));
}

function banner(config: Config, demo: DemoAccess | undefined, startupMs: number): string {
  const base = config.publicBaseUrl.origin;
  const lines = [
    '',
    `Invoice Service is running (ready in ${startupMs} ms)`,
    `  Portal:         ${base}/portal`,
    `  API reference:  ${base}/docs`,
    `  Health:         ${base}/readyz`,
  ];
  if (demo) {
    lines.push('', 'Local demo workspace', `  Workspace:      ${demo.workspaceId}`, `  Wallet:         ${demo.wallet}`);
    if (demo.apiKey) {
      lines.push(
        `  Demo API key:   ${demo.apiKey}`,
        '',
        'Try it — your credits, then a 12.50 USDC invoice:',
        `  curl -s -H "Authorization: Bearer ${demo.apiKey}" ${base}/w/${demo.workspaceId}/v1/billing`,
        `  curl -s -X POST -H "Authorization: Bearer ${demo.apiKey}" -H "Content-Type: application/json" \\`,
        `    -H "Idempotency-Key: demo-$(date +%s)" -d '{"amount":"12.50"}' ${base}/w/${demo.workspaceId}/v1/invoices`,
      );
    } else {
      lines.push(`  Demo API key:   not available (${demo.note ?? 'unknown reason'})`);
    }
  }
  lines.push('', 'Press Ctrl+C to stop.', '');
  return lines.join('\n');
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`configuration error: ${error.message}`);
  } else {
    console.error(`start failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(1);
});
