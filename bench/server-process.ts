import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PoolConfig } from 'pg';
import type { BenchRequest, Scenario } from './scenario.js';

/** The one message the server process sends: it listens on 127.0.0.1:`port`. */
export interface ReadyMessage {
  readonly type: 'ready';
  readonly port: number;
  readonly request: BenchRequest;
  readonly database?: PoolConfig;
}

export interface ServerProcess {
  /** Always loopback: `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly request: BenchRequest;
  /** The scenario's PostgreSQL, if it tells it (PreparedScenario.database). */
  readonly database?: PoolConfig;
  /** Asks the process to stop its scenario (closing PostgreSQL, deleting temp data) and waits for it. */
  stop(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./server.ts', import.meta.url));
/** The real app's setup runs initdb and every migration on a fresh cluster. */
const READY_SECONDS = 120;
const STOP_TIMEOUT_MS = 30_000;

/** Runs the scenario's server in its own process: the load generator never shares its event loop. */
export async function startServerProcess(scenario: Scenario): Promise<ServerProcess> {
  const child = fork(ENTRY, [scenario.name], {
    execArgv: [
      '--import',
      'tsx',
      ...(process.env['BENCH_CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROF']}`] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const readySeconds = scenario.readySeconds ?? READY_SECONDS;
  const ready = await new Promise<ReadyMessage>((resolve, reject) => {
    const timer = setTimeout(() => {
      // SIGTERM would wait for the preparation that hangs; this may leave its temp directory behind.
      child.kill('SIGKILL');
      reject(new Error(`"${scenario.name}": server not ready within ${readySeconds} s`));
    }, readySeconds * 1000);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as ReadyMessage);
    });
    child.once('error', reject);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`"${scenario.name}": server process exited with code ${code} before it was ready`));
    });
  });

  return {
    origin: `http://127.0.0.1:${ready.port}`,
    request: ready.request,
    ...(ready.database && { database: ready.database }),
    stop: async () => {
      if (child.connected) child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
