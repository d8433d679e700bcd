import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { OpenPurchase } from './purchase-chain.js';
import type { PurchaseProcessOptions, PurchaseProcessReady } from './purchase-protocol.js';

const ENTRY = fileURLToPath(new URL('./purchase-process.ts', import.meta.url));
/** initdb, every migration, the network check: as the webhook part's worker process. */
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 30_000;

/** The real app and its workers in their own process, as `npm start` runs them. */
export interface PurchaseService {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly workspaceId: string;
  readonly authorization: string;
  readonly connection: pg.ClientConfig;
  /** Asks the process to stop (workers, app, PostgreSQL, temp data) and waits for it. Never throws. */
  stop(): Promise<void>;
}

/** Forks bench/purchase-process.ts, sends it `options` and resolves once it is ready. */
export async function startPurchaseService(options: Omit<PurchaseProcessOptions, 'type'>): Promise<PurchaseService> {
  const child = fork(ENTRY, [], {
    execArgv: [
      '--import',
      'tsx',
      ...(process.env['BENCH_CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROF']}`] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (child.connected) child.send('stop');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  const ready = await new Promise<PurchaseProcessReady>((resolve, reject) => {
    const timer = setTimeout(() => {
      // SIGTERM would wait for the preparation that hangs; this may leave its temp directory behind.
      child.kill('SIGKILL');
      reject(new Error(`purchase bench: service process not ready within ${READY_TIMEOUT_MS / 1000} s`));
    }, READY_TIMEOUT_MS);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as PurchaseProcessReady);
    });
    child.once('error', reject);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`purchase bench: service process exited with code ${code} before it was ready`));
    });
    const message: PurchaseProcessOptions = { type: 'options', ...options };
    child.send(message);
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    origin: ready.origin,
    workspaceId: ready.workspaceId,
    authorization: ready.authorization,
    connection: ready.connection,
    stop,
  };
}

/** The merchant API calls of a workspace buying credits with its key. */
export class PurchaseApi {
  private keys = 0;

  constructor(private readonly service: PurchaseService) {}

  /** POST /credit-purchases: a new open purchase of `packageId`. */
  async buy(packageId: string): Promise<OpenPurchase> {
    return (await this.call('POST', '/credit-purchases', { packageId }, 201)) as OpenPurchase;
  }

  /** POST /credit-purchases/:id/authorizations; resolves when the 202 has arrived. */
  async submitAuthorization(purchaseId: string, body: object): Promise<void> {
    await this.call('POST', `/credit-purchases/${purchaseId}/authorizations`, body, 202);
  }

  private async call(method: 'POST', path: string, body: object, expected: number): Promise<unknown> {
    const url = `${this.service.origin}/w/${this.service.workspaceId}/v1${path}`;
    const response = await fetch(url, {
      method,
      headers: {
        authorization: this.service.authorization,
        'content-type': 'application/json',
        'idempotency-key': `bench-purchase-${(this.keys += 1)}`,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (response.status !== expected)
      throw new Error(`${method} ${path} answered ${response.status}, not ${expected}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as unknown;
  }
}
