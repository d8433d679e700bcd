import { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PreparedScenario } from './scenario.js';
import { findScenario } from './scenarios/index.js';
import type { ReadyMessage } from './server-process.js';

/**
 * Entry of the server process (forked by server-process.ts with the scenario name): prepares the
 * scenario, listens on loopback only, reports its port, and stops when the runner says so or goes away.
 */
async function main(): Promise<void> {
  const name = process.argv[2] ?? '';
  const scenario = findScenario(name);
  if (!scenario) throw new Error(`no scenario named "${name}"`);

  let prepared: PreparedScenario | undefined = undefined;
  let exitCode: number | undefined;
  let stopping = false;
  // Idempotent. During preparation it only takes note: stopping then would leave PostgreSQL and the
  // temp data half made, so the scenario is stopped as soon as it is ready.
  const stop = async (code: number) => {
    exitCode ??= code;
    if (!prepared || stopping) return;
    stopping = true;
    await prepared.stop();
    process.exit(exitCode);
  };
  process.on('message', (message) => message === 'stop' && void stop(0));
  // The runner crashed or was interrupted: still stop PostgreSQL and delete the temp data.
  process.once('disconnect', () => void stop(1));
  process.once('SIGINT', () => void stop(1));
  process.once('SIGTERM', () => void stop(1));
  // Ctrl+C reaches the embedded PostgreSQL too, and a connection it closes can throw here before our
  // SIGINT arrives. Whatever fails, the temp data is still removed.
  process.on('uncaughtException', (error) => {
    console.error(`bench server: ${error.message}`);
    void stop(1);
  });

  prepared = await scenario.prepare();
  if (exitCode !== undefined) return stop(exitCode);
  let port: number;
  try {
    port = await listenOnLoopback(prepared.app);
  } catch (error) {
    console.error(`bench server: cannot listen: ${error instanceof Error ? error.message : String(error)}`);
    return stop(1);
  }
  const ready: ReadyMessage = {
    type: 'ready',
    port,
    request: prepared.request,
    ...(prepared.database && { database: prepared.database }),
  };
  process.send?.(ready);
}

async function listenOnLoopback(app: PreparedScenario['app']): Promise<number> {
  if (app instanceof Server) {
    await new Promise<void>((resolve, reject) => {
      app.once('error', reject);
      app.listen(0, '127.0.0.1', () => resolve());
    });
    return (app.address() as AddressInfo).port;
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

main().catch((error: unknown) => {
  console.error(`bench server failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
