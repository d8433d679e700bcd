import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, the way a crash or an OOM kill ends it. */
  kill9(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Runs `src/main/start.ts` as its own process, as `npm start` does, and waits until it is ready. */
export async function startService(env: Record<string, string>, readyText = 'Press Ctrl+C to stop.'): Promise<ServiceProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Never outlive the test process, whatever happens to its hooks.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      process.off('exit', killOnExit);
      resolve(code);
    }),
  );

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service not ready within 60 s:\n${output}`)), 60_000);
    const check = () => {
      if (output.includes(readyText)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before it was ready:\n${output}`));
    });
  });

  return {
    child,
    baseUrl: env.PUBLIC_BASE_URL ?? `http://localhost:${port}`,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The demo workspace id and API key from the start banner. */
export function demoAccess(output: string): { workspaceId: string; apiKey: string } {
  const workspaceId = /Workspace:\s+(ws_\w+)/.exec(output)?.[1];
  const apiKey = /Demo API key:\s+(isk_\w+)/.exec(output)?.[1];
  if (!workspaceId || !apiKey) throw new Error(`no demo access in:\n${output}`);
  return { workspaceId, apiKey };
}
