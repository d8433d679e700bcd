import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { createSiweMessage } from 'viem/siwe';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { loadConfig, type Config } from '../../src/config/config.js';
import { buildApp } from '../../src/main/app.js';
import type { Services } from '../../src/main/services.js';
import type { DemoWallet } from '../../src/web/demo-wallet/demo-wallet.js';
import { createServices, NO_CHAIN, type ChainDeps } from '../../src/main/services.js';
import { ManualClock, type Clock } from '../../src/shared/clock.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export const BASE_URL = 'http://localhost:3000';
export const ORIGIN = BASE_URL;

export interface TestApp {
  readonly app: FastifyInstance;
  readonly services: Services;
  readonly database: TestDatabase;
  readonly config: Config;
  /** What the service logged at level error (a 500's cause), as JSON lines. */
  readonly errorLog: () => string;
}

/**
 * Every `inject` comes from one address (127.0.0.1), and suites sign in and send failing keys far more
 * often than a client would: the per-IP abuse limits are out of reach unless a test sets them. The same
 * holds for connections to a listening test app (browsers, x402 clients), all from loopback.
 */
export const GENEROUS_LIMITS: Readonly<Record<string, string>> = {
  NONCE_RATE_LIMIT_PER_MINUTE: '10000000',
  FREE_GRANTS_PER_IP_PER_DAY: '10000000',
  FAILED_API_KEY_LIMIT_PER_MINUTE: '10000000',
  MAX_CONNECTIONS_PER_IP: '100000',
};

/** The operator wallet of test apps, so the credit-purchase endpoints are available unless a test unsets it. */
export const TEST_OPERATOR_WALLET = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** The real app on a fresh clone of the migrated database, driven with `inject`. */
export async function createTestApp(
  env: Record<string, string> = {},
  clock: Clock = new ManualClock(),
  chain: ChainDeps = NO_CHAIN,
  demoWallet?: DemoWallet,
): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    PUBLIC_BASE_URL: BASE_URL,
    OPERATOR_WALLET: TEST_OPERATOR_WALLET,
    // As with NETWORKS set: the SSRF guard refuses private receivers unless a test allows them.
    WEBHOOK_ALLOW_PRIVATE: 'false',
    ...GENEROUS_LIMITS,
    ...env,
  });
  const services = createServices(config, database.db, clock, chain, demoWallet);
  // Only errors are kept, in memory: a test that meets a 500 can say what the service logged about it.
  const errors: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      errors.push(chunk.toString().trim());
      done();
    },
  });
  const app = await buildApp(services, { logger: { level: 'error', stream } });
  afterAll(() => app.close());
  return { app, services, database, config, errorLog: () => errors.join('\n') };
}

export function newWallet(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export interface SiweOverrides {
  domain?: string;
  uri?: string;
  chainId?: number;
  nonce?: string;
  issuedAt?: Date;
  expirationTime?: Date;
  notBefore?: Date;
}

export async function signedSiwe(app: FastifyInstance, wallet: PrivateKeyAccount, overrides: SiweOverrides = {}) {
  const nonce =
    overrides.nonce ?? (await app.inject({ method: 'GET', url: '/auth/nonce' })).json<{ nonce: string }>().nonce;
  const message = createSiweMessage({
    domain: overrides.domain ?? 'localhost:3000',
    address: wallet.address,
    statement: 'Sign in to the Invoice Service.',
    uri: overrides.uri ?? `${BASE_URL}/portal`,
    version: '1',
    chainId: overrides.chainId ?? 84532,
    nonce,
    issuedAt: overrides.issuedAt ?? new Date(),
    ...(overrides.expirationTime ? { expirationTime: overrides.expirationTime } : {}),
    ...(overrides.notBefore ? { notBefore: overrides.notBefore } : {}),
  });
  return { message, signature: await wallet.signMessage({ message }) };
}

/** Signs in and returns the session cookie header value. */
export async function signIn(app: FastifyInstance, wallet: PrivateKeyAccount): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/auth/verify',
    headers: { origin: ORIGIN },
    payload: await signedSiwe(app, wallet),
  });
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.body}`);
  const cookie = response.cookies.find((candidate) => candidate.name === 'invoice_session');
  if (!cookie) throw new Error('no session cookie');
  return `invoice_session=${cookie.value}`;
}

export async function createWorkspace(app: FastifyInstance, cookie: string, name = 'Shop'): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/portal/api/workspaces',
    headers: { cookie, origin: ORIGIN },
    payload: { name },
  });
  if (response.statusCode !== 201) throw new Error(`workspace creation failed: ${response.body}`);
  return response.json<{ id: string }>().id;
}

export async function createKey(
  app: FastifyInstance,
  cookie: string,
  workspaceId: string,
  permissions: string[],
  name = 'server',
) {
  return app.inject({
    method: 'POST',
    url: `/portal/api/w/${workspaceId}/keys`,
    headers: { cookie, origin: ORIGIN },
    payload: { name, permissions },
  });
}

/** A signed-in wallet with a workspace and one key holding `permissions`. */
/** Calls the merchant API of `workspaceId` with this key: `call('GET', '/invoices')` is `/w/<workspace>/v1/invoices`. */
export function merchantApi(app: FastifyInstance, workspaceId: string, apiKey: string) {
  return (method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, payload?: object) =>
    app.inject({
      method,
      url: `/w/${workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${apiKey}`, ...headers },
      ...(payload && { payload }),
    });
}

export async function merchant(app: FastifyInstance, permissions: string[]) {
  const wallet = newWallet();
  const cookie = await signIn(app, wallet);
  const workspaceId = await createWorkspace(app, cookie);
  const response = await createKey(app, cookie, workspaceId, permissions);
  if (response.statusCode !== 201) throw new Error(`key creation failed: ${response.body}`);
  const key = response.json<{ id: string; secret: string }>();
  return { wallet, cookie, workspaceId, keyId: key.id, apiKey: key.secret };
}
