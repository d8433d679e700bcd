import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';

// The local chain poses as Base Sepolia, so unmodified x402 clients accept it.
import { LOCAL_CHAIN_ID } from '../config/config.js';

export { LOCAL_CHAIN_ID };

export interface StartAnvilOptions {
  /** Mine a block every N seconds instead of one per transaction (anvil's automine, the default). */
  readonly blockTimeSeconds?: number;
  /** Number of funded dev accounts from anvil's default mnemonic (anvil's default: 10). */
  readonly accounts?: number;
  /** Load the chain from this file at start and save it there periodically and on exit. */
  readonly statePath?: string;
  /** The chain id it answers (default LOCAL_CHAIN_ID, Base Sepolia's): another one poses as another network. */
  readonly chainId?: number;
}

export interface Anvil {
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly pid: number;
  /** Ends the process and waits for it to exit. Idempotent; never throws. */
  stop(): Promise<void>;
}

export class AnvilError extends Error {
  override name = 'AnvilError';
}

const READY_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 3_000;
const LISTENING = /Listening on (\S+:\d+)/;

/**
 * Starts a real anvil on a free port (anvil binds port 0 and prints the port it got, so there is no window
 * in which another process could take it) and resolves once its RPC answers.
 *
 * The process is killed when this process exits normally or through `process.exit`. A signal that kills
 * this process bypasses 'exit' hooks: composition roots should turn SIGINT/SIGTERM into `process.exit` or
 * call stop().
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<Anvil> {
  const chainId = options.chainId ?? LOCAL_CHAIN_ID;
  const args = ['--port', '0', '--host', '127.0.0.1', '--chain-id', String(chainId)];
  if (options.blockTimeSeconds !== undefined) args.push('--block-time', String(options.blockTimeSeconds));
  if (options.accounts !== undefined) args.push('--accounts', String(options.accounts));
  // Saved every few seconds too, so a crash of the service loses at most that much of the demo chain.
  if (options.statePath !== undefined) args.push('--state', options.statePath, '--state-interval', '5');

  const binary = anvilBinary();
  // Its own process group, so Ctrl+C reaches the service, which stops anvil in order.
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  track(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = once(() => stopProcess(child, exited));

  try {
    const address = await waitForListening(child, binary);
    const rpcUrl = `http://${address}`;
    await waitUntilAnswering(rpcUrl, child, chainId);
    return { rpcUrl, chainId, pid: child.pid ?? 0, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The binary from the optional npm package on linux-x64; elsewhere (or when optional dependencies were
 * skipped) an `anvil` on PATH, e.g. from foundryup.
 */
function anvilBinary(): string {
  if (process.platform === 'linux' && process.arch === 'x64') {
    try {
      return createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/bin/anvil');
    } catch {
      // Not installed: fall through to PATH.
    }
  }
  return 'anvil';
}

/** Reads stdout until anvil names its address, then keeps draining it so anvil never blocks on a full pipe. */
function waitForListening(child: ChildProcess, binary: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(
      () => fail(new AnvilError(`anvil did not start within ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    );
    const onStdout = (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const match = LISTENING.exec(stdout);
      if (match?.[1]) {
        cleanup();
        resolve(match[1]);
      }
    };
    const onStderr = (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
    };
    const onError = (error: NodeJS.ErrnoException) =>
      fail(
        error.code === 'ENOENT'
          ? new AnvilError(`anvil not found (${binary}): install @foundry-rs/anvil-linux-amd64 or put anvil on PATH`)
          : error,
      );
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(new AnvilError(`anvil exited before it was ready (code ${code}, signal ${signal}):\n${stderr || stdout}`));
    function fail(error: Error) {
      cleanup();
      reject(error);
    }
    function cleanup() {
      clearTimeout(timer);
      child.stdout?.off('data', onStdout);
      child.off('error', onError);
      child.off('exit', onExit);
      // Keep consuming both pipes, discarding what comes: the output stays quiet, anvil never stalls.
      child.stdout?.resume();
      child.stderr?.off('data', onStderr);
      child.stderr?.resume();
    }
    child.stdout?.on('data', onStdout);
    child.stderr?.on('data', onStderr);
    child.on('error', onError);
    child.on('exit', onExit);
  });
}

async function waitUntilAnswering(rpcUrl: string, child: ChildProcess, chainId: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new AnvilError('anvil exited before it was ready');
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        signal: AbortSignal.timeout(2_000),
      });
      const body = (await response.json()) as { result?: string };
      if (body.result !== undefined) {
        if (Number(body.result) !== chainId) throw new AnvilError(`anvil answered chain id ${body.result}`);
        return;
      }
    } catch (error) {
      if (error instanceof AnvilError) throw error;
      // Not answering yet.
    }
    if (Date.now() > deadline) throw new AnvilError(`anvil's RPC did not answer within ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  // No pid: the binary never started (ENOENT), and no 'exit' event is promised then.
  if (child.pid === undefined) {
    running.delete(child);
    return;
  }
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
}

// One 'exit' hook for all anvils of this process, rather than one listener each.
const running = new Set<ChildProcess>();
let hookInstalled = false;

function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!hookInstalled) {
    hookInstalled = true;
    // 'exit' handlers must be synchronous: a signal is all there is time for.
    process.on('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let result: Promise<void> | undefined;
  return () => (result ??= fn());
}
