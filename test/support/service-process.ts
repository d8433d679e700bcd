import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { freePort } from './free-port.js';

export { freePort };

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** PUBLIC_BASE_URL when set, which may be another process's address. */
  readonly baseUrl: string;
  /** Where this process itself listens. */
  readonly localUrl: string;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, the way a crash or an OOM kill ends it. */
  kill9(): Promise<void>;
}

/** Runs `src/main/start.ts` as its own process, as `npm start` does, and waits until it is ready. */
export async function startService(
  env: Record<string, string>,
  readyText = 'Press Ctrl+C to stop.',
  /** The project's directory: this one, or a copy of it elsewhere. */
  cwd = ROOT,
  /** The Node.js that runs it: this one, or another release's binary. */
  node = process.execPath,
): Promise<ServiceProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(node, ['--import', 'tsx', 'src/main/start.ts'], {
    cwd,
    // Every test client connects from loopback, some with hundreds of concurrent requests.
    env: { ...process.env, LOG_LEVEL: 'warn', MAX_CONNECTIONS_PER_IP: '100000', ...env, PORT: port },
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
    localUrl: `http://localhost:${port}`,
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

/**
 * Signs a new wallet in over real HTTP (EIP-4361) at `url`, for a service whose PUBLIC_BASE_URL is
 * `publicBaseUrl`; returns the headers of a signed-in portal request (JSON, Origin, session cookie).
 */
export async function signInOverHttp(url: string, publicBaseUrl: string): Promise<Record<string, string>> {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const { nonce } = (await (await fetch(`${url}/auth/nonce`)).json()) as { nonce: string };
  const message = createSiweMessage({
    domain: new URL(publicBaseUrl).host,
    address: wallet.address,
    uri: `${publicBaseUrl}/portal`,
    version: '1',
    chainId: 84532,
    nonce,
    issuedAt: new Date(),
  });
  const signIn = await fetch(`${url}/auth/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: publicBaseUrl },
    body: JSON.stringify({ message, signature: await wallet.signMessage({ message }) }),
  });
  if (signIn.status !== 200) throw new Error(`sign-in failed: ${signIn.status} ${await signIn.text()}`);
  return {
    'content-type': 'application/json',
    origin: publicBaseUrl,
    cookie: signIn.headers.get('set-cookie')!.split(';')[0]!,
  };
}
