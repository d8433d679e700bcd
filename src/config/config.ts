import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { parseUsdc } from '../shared/money.js';

/** A configured payment network (README, NETWORKS). The EIP-712 domain is read from the token at start. */
export interface NetworkConfig {
  readonly name: string;
  readonly chainId: number;
  /**
   * The JSON-RPC providers of the network, in order of preference (one or more). Calls go to the first
   * healthy one; src/chain/rpc-failover.ts says when one is skipped. A single `rpcUrl` is a list of one.
   */
  readonly rpcUrls: readonly string[];
  readonly usdc: `0x${string}`;
  readonly confirmations: number;
  readonly blockTimeSeconds?: number;
  /**
   * How deep a recorded payment's block must be before it is final: until then it is re-checked against
   * the chain and reverted if a reorganisation took its transaction out. Unset: finalityBlocksOf's default.
   */
  readonly finalityBlocks?: number;
  /** A block explorer's base URL (`https://sepolia.basescan.org`): receipts link `${explorerUrl}/tx/${hash}`. */
  readonly explorerUrl?: string;
  /** Overrides MAX_FEE_PER_GAS_GWEI on this network. */
  readonly maxFeePerGasGwei?: number;
  /** Overrides RELAYER_MIN_BALANCE_WEI on this network. */
  readonly relayerMinBalanceWei?: bigint;
}

/** A credit package on offer (README, CREDIT_PACKAGES): `credits` for `price` USDC micro-units. */
export interface CreditPackage {
  readonly id: string;
  readonly credits: number;
  readonly price: bigint;
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** `auto`: readable lines when stdout is a terminal, JSON lines otherwise (a file, a pipe, a log collector). */
export type LogFormat = 'auto' | 'json' | 'pretty';

/**
 * Whose word on the client address (`X-Forwarded-For`) is taken. `false`: nobody's; the client is the TCP
 * peer. A number: that many proxies stand in front of the service, the TCP peer being the first; the
 * client is the entry that many places from the right of X-Forwarded-For (entries a client wrote itself
 * sit further left and are ignored). It cannot tell a proxy from a client that reaches the service
 * directly, so it is safe only where nothing else can. A list: the IP addresses and CIDR ranges of the
 * proxies; the client is the rightmost address, counting the TCP peer, that is not one of them.
 */
export type TrustProxy = false | number | readonly string[];

/** What a process does: serve HTTP (`api`), run jobs (`worker`), or both (`all`). */
export type Role = 'all' | 'api' | 'worker';

export interface Config {
  /**
   * `api`: the HTTP app only, no job runners. `worker`: the job runners and recurring jobs, with only
   * /healthz, /readyz and /metrics on PORT. Split roles share DATABASE_URL and NETWORKS.
   */
  readonly role: Role;
  readonly port: number;
  readonly host: string;
  readonly publicBaseUrl: URL;
  /** Unset: the process runs an embedded PostgreSQL under `dataDir`. */
  readonly databaseUrl: string | undefined;
  /**
   * A direct (not pooled) connection to the same database, for what needs a session of its own: the
   * LISTEN connection that wakes job runners, and migrations. Unset: both use `databaseUrl`.
   */
  readonly databaseDirectUrl: string | undefined;
  /**
   * Streaming replicas of DATABASE_URL (DATABASE_READ_URL, comma-separated): lists, search, exports,
   * statements, the dashboard and the change feed read there (src/db/read-replicas.ts). Empty: all on the primary.
   */
  readonly databaseReadUrls: readonly string[];
  /** A replica further behind the primary than this (ms) serves no reads until it catches up. */
  readonly databaseReadMaxLagMs: number;
  readonly dataDir: string;
  /**
   * As root: where the embedded PostgreSQL's binaries and cluster go when its unprivileged user cannot
   * reach them in node_modules or DATA_DIR (a clone in root's 0700 home directory).
   */
  readonly embeddedSystemDir: string;
  /** Unset: `start` runs a local anvil chain (the demo network). */
  readonly networks: readonly NetworkConfig[] | undefined;
  /**
   * The relayer accounts that sign and pay the gas of settlements: RELAYER_PRIVATE_KEY, or several in
   * RELAYER_PRIVATE_KEYS; empty when neither is set.
   */
  readonly relayerPrivateKeys: readonly `0x${string}`[];
  /**
   * The highest fee per gas (gwei) the relayer signs a settlement with, first or as a replacement of a
   * stuck one; a network's `maxFeePerGasGwei` overrides it.
   */
  readonly maxFeePerGasGwei: number;
  /**
   * Below this balance the relayer is reported low (/readyz, the log). Unset: the gas of
   * RELAYER_LOW_SETTLEMENTS settlements at the network's current fee. A network's `relayerMinBalanceWei`
   * overrides it.
   */
  readonly relayerMinBalanceWei: bigint | undefined;
  /** Receives credit purchases; unset, the purchase endpoints answer 503 purchases_unavailable. */
  readonly operatorWallet: `0x${string}` | undefined;
  /** What a workspace can buy; never empty. */
  readonly creditPackages: readonly CreditPackage[];
  readonly webhookAllowPrivate: boolean;
  readonly webhookRetrySchedule: readonly number[];
  /** A delivery still failing this long after it was created (or retried by hand) is marked failed. */
  readonly webhookRetryWindowSeconds: number;
  /** Credits granted to a wallet's first workspace; its later workspaces start with none. */
  readonly newWorkspaceCredits: number;
  /**
   * First-workspace grants per client address (an IPv6 client's /64) in a day, counted in the database;
   * a workspace created beyond them gets no grant.
   */
  readonly freeGrantsPerIpPerDay: number;
  /** Workspaces one wallet may own. */
  readonly maxWorkspacesPerWallet: number;
  readonly successFeeCredits: number;
  /** USDC micro-units. */
  readonly maxInvoiceAmount: bigint;
  readonly apiRateLimitPerMinute: number;
  /** Requests per minute per client IP on the public checkout endpoints. */
  readonly checkoutRateLimitPerMinute: number;
  /** Sign-in nonces per client IP per minute, counted in the database (all processes together). */
  readonly nonceRateLimitPerMinute: number;
  /** Failed API key attempts per client IP per minute, counted in the database; then the IP gets 429. */
  readonly failedApiKeyLimitPerMinute: number;
  /** Change-feed events older than this are deleted; older cursors answer 410 cursor_expired. */
  readonly eventRetentionDays: number;
  /** An invoice's timeline keeps its records this long, past the feed's retention (at least eventRetentionDays). */
  readonly invoiceRetentionDays: number;
  /** A submitted transaction hash the network does not know is dropped this long after submission. */
  readonly unseenTransactionMinutes: number;
  /** A client must send its request headers within this time, and the whole request within the next. */
  readonly headersTimeoutSeconds: number;
  readonly requestTimeoutSeconds: number;
  /** Connections one client address may hold open at once; the next is answered 429 and closed. */
  readonly maxConnectionsPerIp: number;
  /**
   * The proxies whose X-Forwarded-For is believed; from it comes every request's client address (per-IP
   * limits, the request log). `false` (the default): none. The connection limit counts TCP peers anyway.
   */
  readonly trustProxy: TrustProxy;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const LOG_FORMATS: readonly LogFormat[] = ['auto', 'json', 'pretty'];
const ROLES: readonly Role[] = ['all', 'api', 'worker'];
/** Grows from 5 s to the 30-minute cap; the last delay repeats until the delivery window ends. */
const DEFAULT_RETRY_SCHEDULE = [5, 30, 120, 600, 1800];
/** Root's own place for the embedded PostgreSQL when its user cannot reach node_modules or DATA_DIR. */
export const DEFAULT_EMBEDDED_SYSTEM_DIR = '/var/lib/invoice-service';
/** The demo/test network: a local anvil whose chain id is Base Sepolia's. */
export const LOCAL_CHAIN_ID = 84532;

/** Parses the environment once. Throws ConfigError naming the variable on the first invalid value. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = text(env, 'HOST') ?? '127.0.0.1';
  const eventRetentionDays = integer(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650);
  const headersTimeoutSeconds = integer(env, 'HEADERS_TIMEOUT_SECONDS', 10, 1, 600);
  const paymentNetworks = networks(env, cwd);
  const config: Config = {
    role: role(env),
    port,
    host,
    publicBaseUrl: baseUrl(env, port),
    databaseUrl: databaseUrl(env, 'DATABASE_URL'),
    databaseDirectUrl: databaseDirectUrl(env),
    databaseReadUrls: databaseReadUrls(env),
    databaseReadMaxLagMs: integer(env, 'DATABASE_READ_MAX_LAG_MS', 1_000, 0, 600_000),
    dataDir: path.resolve(cwd, text(env, 'DATA_DIR') ?? '.data'),
    embeddedSystemDir: path.resolve(cwd, text(env, 'EMBEDDED_SYSTEM_DIR') ?? DEFAULT_EMBEDDED_SYSTEM_DIR),
    networks: paymentNetworks,
    relayerPrivateKeys: relayerKeys(env),
    maxFeePerGasGwei: gwei(env, 'MAX_FEE_PER_GAS_GWEI', 500),
    relayerMinBalanceWei: wei(env, 'RELAYER_MIN_BALANCE_WEI'),
    operatorWallet: hex(env, 'OPERATOR_WALLET', 40),
    creditPackages: creditPackages(env, cwd),
    // The local demo (no NETWORKS) runs on one machine, so its receivers are there too.
    webhookAllowPrivate: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', paymentNetworks === undefined),
    webhookRetrySchedule: retrySchedule(env),
    webhookRetryWindowSeconds: integer(env, 'WEBHOOK_RETRY_WINDOW_SECONDS', 3 * 86_400, 1, 30 * 86_400),
    newWorkspaceCredits: integer(env, 'NEW_WORKSPACE_CREDITS', 100, 0, 1_000_000_000),
    freeGrantsPerIpPerDay: integer(env, 'FREE_GRANTS_PER_IP_PER_DAY', 3, 0, 10_000_000),
    maxWorkspacesPerWallet: integer(env, 'MAX_WORKSPACES_PER_WALLET', 20, 1, 100_000),
    successFeeCredits: integer(env, 'SUCCESS_FEE_CREDITS', 1, 0, 1_000),
    maxInvoiceAmount: usdcAmount(env, 'MAX_INVOICE_AMOUNT', '10000'),
    apiRateLimitPerMinute: integer(env, 'API_RATE_LIMIT_PER_MINUTE', 1200, 1, 10_000_000),
    checkoutRateLimitPerMinute: integer(env, 'CHECKOUT_RATE_LIMIT_PER_MINUTE', 120, 1, 10_000_000),
    nonceRateLimitPerMinute: integer(env, 'NONCE_RATE_LIMIT_PER_MINUTE', 30, 1, 10_000_000),
    failedApiKeyLimitPerMinute: integer(env, 'FAILED_API_KEY_LIMIT_PER_MINUTE', 20, 1, 10_000_000),
    eventRetentionDays,
    invoiceRetentionDays: invoiceRetentionDays(env, eventRetentionDays),
    unseenTransactionMinutes: integer(env, 'UNSEEN_TRANSACTION_MINUTES', 10, 1, 1440),
    headersTimeoutSeconds,
    requestTimeoutSeconds: integer(
      env,
      'REQUEST_TIMEOUT_SECONDS',
      Math.max(30, headersTimeoutSeconds),
      headersTimeoutSeconds,
      3600,
    ),
    maxConnectionsPerIp: integer(env, 'MAX_CONNECTIONS_PER_IP', 100, 1, 100_000),
    trustProxy: trustProxy(env),
    logLevel: logLevel(env),
    logFormat: oneOf(env, 'LOG_FORMAT', LOG_FORMATS, 'auto'),
  };
  return Object.freeze(config);
}

/** The invoice's records may not go before the feed's events they were kept from. */
function invoiceRetentionDays(env: Env, eventRetentionDays: number): number {
  const days = integer(env, 'INVOICE_RETENTION_DAYS', Math.max(400, eventRetentionDays), 1, 36_500);
  if (days < eventRetentionDays)
    throw new ConfigError(
      'INVOICE_RETENTION_DAYS',
      `must be at least EVENT_RETENTION_DAYS (${eventRetentionDays}): an invoice's timeline keeps its feed events, got ${days}`,
    );
  return days;
}

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${raw}`);
  return value;
}

/** A positive fee in gwei, fractions allowed (L2 fees are a fraction of a gwei). */
function gwei(env: Env, name: string, fallback: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(value > 0) || value > 1_000_000)
    throw new ConfigError(name, `expected a positive number of gwei up to 1000000, got "${raw}"`);
  return value;
}

/** A whole number of wei (a string: ether balances exceed JavaScript's safe integers). */
function wei(env: Env, name: string): bigint | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (!/^\d{1,30}$/.test(raw)) throw new ConfigError(name, `expected a whole number of wei, got "${raw}"`);
  return BigInt(raw);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function hex(env: Env, name: string, digits: number): `0x${string}` | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  if (!new RegExp(`^0x[0-9a-fA-F]{${digits}}$`).test(raw)) {
    throw new ConfigError(name, `expected 0x followed by ${digits} hex digits`);
  }
  return raw as `0x${string}`;
}

/** At most this many relayer accounts: each is read for its funds on every network. */
const MAX_RELAYER_KEYS = 16;

function relayerKeys(env: Env): `0x${string}`[] {
  const one = hex(env, 'RELAYER_PRIVATE_KEY', 64);
  const list = text(env, 'RELAYER_PRIVATE_KEYS');
  if (list === undefined) return one ? [one] : [];
  if (one)
    throw new ConfigError('RELAYER_PRIVATE_KEYS', 'set either RELAYER_PRIVATE_KEY or RELAYER_PRIVATE_KEYS, not both');
  const keys = list.split(',').map((key) => key.trim());
  if (keys.length > MAX_RELAYER_KEYS)
    throw new ConfigError('RELAYER_PRIVATE_KEYS', `at most ${MAX_RELAYER_KEYS} keys, comma-separated`);
  keys.forEach((key, index) => {
    if (!/^0x[0-9a-fA-F]{64}$/.test(key))
      throw new ConfigError('RELAYER_PRIVATE_KEYS', `key ${index + 1}: expected 0x followed by 64 hex digits`);
  });
  if (new Set(keys.map((key) => key.toLowerCase())).size !== keys.length)
    throw new ConfigError('RELAYER_PRIVATE_KEYS', 'a key is listed twice');
  return keys as `0x${string}`[];
}

function baseUrl(env: Env, port: number): URL {
  const raw = text(env, 'PUBLIC_BASE_URL') ?? `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL', `not a URL: "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_BASE_URL', 'must start with http:// or https://');
  }
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    throw new ConfigError('PUBLIC_BASE_URL', 'must be an origin only (scheme, host and port), without a path');
  }
  return url;
}

function databaseUrl(env: Env, variable: 'DATABASE_URL' | 'DATABASE_DIRECT_URL'): string | undefined {
  const raw = text(env, variable);
  if (raw === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError(variable, 'expected a postgres:// or postgresql:// connection string');
  }
  return raw;
}

function databaseDirectUrl(env: Env): string | undefined {
  const direct = databaseUrl(env, 'DATABASE_DIRECT_URL');
  if (direct !== undefined && text(env, 'DATABASE_URL') === undefined) {
    throw new ConfigError('DATABASE_DIRECT_URL', 'needs DATABASE_URL: it is the direct way to the same database');
  }
  return direct;
}

/** More replicas than one process would ever read from; a longer list is a mistake. */
const MAX_READ_REPLICAS = 16;

function databaseReadUrls(env: Env): string[] {
  const raw = text(env, 'DATABASE_READ_URL');
  if (raw === undefined) return [];
  if (text(env, 'DATABASE_URL') === undefined)
    throw new ConfigError(
      'DATABASE_READ_URL',
      'needs DATABASE_URL: replicas are of that primary (the embedded PostgreSQL has none)',
    );
  // A comma inside one URL (a password, a query) is kept: only a comma before the next URL separates.
  const urls = raw.split(/\s*,\s*(?=postgres(?:ql)?:\/\/)/).map((url) => url.trim());
  if (urls.length > MAX_READ_REPLICAS)
    throw new ConfigError('DATABASE_READ_URL', `at most ${MAX_READ_REPLICAS} replicas, comma-separated`);
  urls.forEach((url, index) => {
    if (!/^postgres(ql)?:\/\/[^,\s]/.test(url) || !URL.canParse(url))
      throw new ConfigError(
        'DATABASE_READ_URL',
        `URL ${index + 1}: expected a postgres:// or postgresql:// connection string`,
      );
  });
  if (new Set(urls).size !== urls.length) throw new ConfigError('DATABASE_READ_URL', 'a URL is listed twice');
  return urls;
}

/** Far more proxies than any real chain has; a larger count is a typo. */
const MAX_PROXY_HOPS = 10;

function trustProxy(env: Env): TrustProxy {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === undefined) return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > MAX_PROXY_HOPS) {
      throw new ConfigError(
        'TRUST_PROXY',
        `a hop count must be between 1 and ${MAX_PROXY_HOPS}, got ${raw} (leave TRUST_PROXY unset to trust no proxy)`,
      );
    }
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!isIpOrCidr(entry)) {
      throw new ConfigError(
        'TRUST_PROXY',
        `expected a hop count (a whole number from 1 to ${MAX_PROXY_HOPS}) or a comma-separated list of the proxies' IP addresses or CIDR ranges, like "10.0.0.0/8, fd00::/8"; ${entry === '' ? 'an entry is empty' : `"${entry}" is neither an IP address nor a CIDR range`}`,
      );
    }
  }
  return Object.freeze(entries);
}

/** IPv4 in four decimal parts only: ipaddr.js would also read "10" or "0x0a.1" as addresses. */
function isIpOrCidr(entry: string): boolean {
  return (
    ipaddr.IPv4.isValidFourPartDecimal(entry) ||
    ipaddr.IPv4.isValidCIDRFourPartDecimal(entry) ||
    ipaddr.IPv6.isValid(entry) ||
    ipaddr.IPv6.isValidCIDR(entry)
  );
}

function logLevel(env: Env): LogLevel {
  return oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info');
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, name)?.toLowerCase() ?? fallback;
  if (!allowed.includes(raw as T)) {
    throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/**
 * A split role needs state that other processes share. The embedded PostgreSQL (no DATABASE_URL) and the
 * local demo chain (no NETWORKS) belong to the one process that started them: an `api` beside them would
 * never have its jobs run, a `worker` would serve no one.
 */
function role(env: Env): Role {
  const raw = text(env, 'ROLE')?.toLowerCase() ?? 'all';
  if (!ROLES.includes(raw as Role)) throw new ConfigError('ROLE', `expected one of ${ROLES.join(', ')}, got "${raw}"`);
  if (raw !== 'all') {
    const missing = ['DATABASE_URL', 'NETWORKS'].filter((name) => text(env, name) === undefined);
    if (missing.length > 0) {
      throw new ConfigError(
        'ROLE',
        `${raw} needs ${missing.join(' and ')}: api and worker processes share one PostgreSQL and real networks, while the embedded database and the local demo chain serve one process (use ROLE=all there)`,
      );
    }
  }
  return raw as Role;
}

function retrySchedule(env: Env): number[] {
  const raw = text(env, 'WEBHOOK_RETRY_SCHEDULE');
  if (raw === undefined) return DEFAULT_RETRY_SCHEDULE;
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d+$/.test(part) || Number(part) === 0)) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE', 'expected comma-separated positive whole seconds, e.g. "5,30,120"');
  }
  return parts.map(Number);
}

function usdcAmount(env: Env, name: string, fallback: string): bigint {
  const raw = text(env, name) ?? fallback;
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(raw);
  if (!match || /^0+(\.0*)?$/.test(raw)) {
    throw new ConfigError(name, `expected a positive USDC amount with at most 6 decimals, got "${raw}"`);
  }
  return BigInt(match[1] ?? '0') * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}

function networks(env: Env, cwd: string): NetworkConfig[] | undefined {
  const entries = jsonArray(env, 'NETWORKS', cwd);
  if (entries === undefined) return undefined;
  const seen = new Set<string>();
  return entries.map((entry: unknown, index) => {
    const network = parseNetwork(entry, `NETWORKS[${index}]`);
    if (seen.has(network.name)) throw new ConfigError('NETWORKS', `duplicate network name "${network.name}"`);
    seen.add(network.name);
    return network;
  });
}

/** A non-empty JSON array, written in the variable itself or in the JSON file it names (relative to cwd). */
function jsonArray(env: Env, name: string, cwd: string): unknown[] | undefined {
  const raw = text(env, name);
  if (raw === undefined) return undefined;
  let source = raw;
  if (!raw.startsWith('[')) {
    const file = path.resolve(cwd, raw);
    if (!existsSync(file))
      throw new ConfigError(name, `expected a JSON array or a path to a JSON file; no file at ${file}`);
    source = readFileSync(file, 'utf8');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw new ConfigError(name, `invalid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw new ConfigError(name, 'expected a non-empty JSON array');
  return parsed;
}

/**
 * Offered when CREDIT_PACKAGES is unset: the more credits at once, the cheaper each (10, 9 and 8 US
 * cents a credit). Documented in the README; an operator sets their own prices with the variable.
 */
export const DEFAULT_CREDIT_PACKAGES: readonly CreditPackage[] = [
  { id: 'starter', credits: 100, price: 10_000_000n },
  { id: 'growth', credits: 1_000, price: 90_000_000n },
  { id: 'scale', credits: 10_000, price: 800_000_000n },
];

/** Credits and prices far beyond any real package, small enough that sums stay exact in bigint columns. */
const MAX_PACKAGE_CREDITS = 1_000_000_000;
const MAX_PACKAGE_PRICE = 1_000_000_000n * 1_000_000n;

function creditPackages(env: Env, cwd: string): readonly CreditPackage[] {
  const entries = jsonArray(env, 'CREDIT_PACKAGES', cwd);
  if (entries === undefined) return DEFAULT_CREDIT_PACKAGES;
  const seen = new Set<string>();
  return entries.map((entry: unknown, index) => {
    const where = `CREDIT_PACKAGES[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new ConfigError('CREDIT_PACKAGES', `${where} must be an object`);
    const value = entry as Record<string, unknown>;
    const fail = (field: string, expected: string): never => {
      throw new ConfigError('CREDIT_PACKAGES', `${where}.${field} must be ${expected}`);
    };
    if (typeof value.id !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,39}$/.test(value.id))
      fail('id', 'a lowercase slug like "starter" (letters, digits, - and _; at most 40)');
    const id = value.id as string;
    if (seen.has(id)) throw new ConfigError('CREDIT_PACKAGES', `duplicate package id "${id}"`);
    seen.add(id);
    if (
      !Number.isSafeInteger(value.credits) ||
      (value.credits as number) < 1 ||
      (value.credits as number) > MAX_PACKAGE_CREDITS
    )
      fail('credits', `a whole number of credits from 1 to ${MAX_PACKAGE_CREDITS}`);
    // A string, as every USDC amount in the API: a JSON number would pass through a float.
    const price = typeof value.price === 'string' ? parseUsdc(value.price) : undefined;
    if (price === undefined || price <= 0n || price > MAX_PACKAGE_PRICE)
      fail('price', 'a positive USDC amount as a string with at most 6 decimals, like "10" or "9.99"');
    return { id, credits: value.credits as number, price: price! };
  });
}

function parseNetwork(entry: unknown, where: string): NetworkConfig {
  if (typeof entry !== 'object' || entry === null) throw new ConfigError('NETWORKS', `${where} must be an object`);
  const value = entry as Record<string, unknown>;
  const fail = (field: string, expected: string): never => {
    throw new ConfigError('NETWORKS', `${where}.${field} must be ${expected}`);
  };
  if (typeof value.name !== 'string' || !/^[a-z0-9][a-z0-9-]{0,39}$/.test(value.name))
    fail('name', 'a lowercase name like "base-sepolia"');
  if (!Number.isSafeInteger(value.chainId) || (value.chainId as number) <= 0) fail('chainId', 'a positive integer');
  const rpcUrls = parseRpcUrls(value, where);
  if (typeof value.usdc !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value.usdc))
    fail('usdc', 'a 0x-prefixed token address');
  const confirmations = value.confirmations ?? 1;
  if (!Number.isSafeInteger(confirmations) || (confirmations as number) < 1 || (confirmations as number) > 100) {
    fail('confirmations', 'an integer from 1 to 100');
  }
  if (
    value.blockTimeSeconds !== undefined &&
    (typeof value.blockTimeSeconds !== 'number' || value.blockTimeSeconds <= 0)
  ) {
    fail('blockTimeSeconds', 'a positive number');
  }
  const { finalityBlocks } = value;
  if (
    finalityBlocks !== undefined &&
    (!Number.isSafeInteger(finalityBlocks) || (finalityBlocks as number) < 1 || (finalityBlocks as number) > 100_000)
  )
    fail('finalityBlocks', 'an integer from 1 to 100000');
  // https only: the link is put in front of buyers, on a page whose own links are all https.
  if (value.explorerUrl !== undefined && (typeof value.explorerUrl !== 'string' || !isHttpsBase(value.explorerUrl)))
    fail('explorerUrl', 'an https URL without query or fragment, like "https://sepolia.basescan.org"');
  const maxFee = value.maxFeePerGasGwei;
  if (maxFee !== undefined && (typeof maxFee !== 'number' || !(maxFee > 0) || maxFee > 1_000_000))
    fail('maxFeePerGasGwei', 'a positive number of gwei up to 1000000');
  const minBalance = value.relayerMinBalanceWei;
  if (minBalance !== undefined && (typeof minBalance !== 'string' || !/^\d{1,30}$/.test(minBalance)))
    fail('relayerMinBalanceWei', 'a whole number of wei as a string, like "5000000000000000"');
  return {
    name: value.name as string,
    chainId: value.chainId as number,
    rpcUrls,
    usdc: value.usdc as `0x${string}`,
    confirmations: confirmations as number,
    ...(finalityBlocks === undefined ? {} : { finalityBlocks: finalityBlocks as number }),
    ...(value.blockTimeSeconds === undefined ? {} : { blockTimeSeconds: value.blockTimeSeconds as number }),
    ...(value.explorerUrl === undefined ? {} : { explorerUrl: (value.explorerUrl as string).replace(/\/+$/, '') }),
    ...(maxFee === undefined ? {} : { maxFeePerGasGwei: maxFee as number }),
    ...(minBalance === undefined ? {} : { relayerMinBalanceWei: BigInt(minBalance as string) }),
  };
}

const MAX_RPC_URLS = 10;

/** `rpcUrls` (one or more URLs), or the older `rpcUrl` as a list of one; never both, so none is ignored. */
function parseRpcUrls(value: Record<string, unknown>, where: string): readonly string[] {
  const isRpcUrl = (url: unknown): url is string => typeof url === 'string' && /^(https?|wss?):\/\/./.test(url);
  if (value.rpcUrls !== undefined && value.rpcUrl !== undefined)
    throw new ConfigError('NETWORKS', `${where} has both rpcUrl and rpcUrls; give the list in rpcUrls only`);
  if (value.rpcUrls === undefined) {
    if (value.rpcUrl === undefined)
      throw new ConfigError('NETWORKS', `${where}.rpcUrls must be a list of http(s) or ws(s) URLs`);
    if (!isRpcUrl(value.rpcUrl)) throw new ConfigError('NETWORKS', `${where}.rpcUrl must be an http(s) or ws(s) URL`);
    return [value.rpcUrl];
  }
  const urls = value.rpcUrls;
  if (!Array.isArray(urls) || urls.length === 0 || urls.length > MAX_RPC_URLS)
    throw new ConfigError('NETWORKS', `${where}.rpcUrls must be a list of 1 to ${MAX_RPC_URLS} http(s) or ws(s) URLs`);
  urls.forEach((url: unknown, index) => {
    if (!isRpcUrl(url)) throw new ConfigError('NETWORKS', `${where}.rpcUrls[${index}] must be an http(s) or ws(s) URL`);
  });
  if (new Set(urls).size !== urls.length)
    throw new ConfigError('NETWORKS', `${where}.rpcUrls lists the same URL twice`);
  return urls as string[];
}

/**
 * Blocks after which a reorganisation is taken not to happen, by chain id (README, NETWORKS). Ethereum
 * and Sepolia: 64, two epochs, when a block is finalized. OP-stack L2s (Base, Base Sepolia, OP Mainnet,
 * OP Sepolia): 900, 30 minutes of 2-second blocks, by when the batch holding a block is on Ethereum and
 * finalized there. Any other chain (the local demo chain included): 64.
 */
const FINALITY_BLOCKS: Readonly<Record<number, number>> = {
  1: 64,
  11155111: 64,
  8453: 900,
  84532: 900,
  10: 900,
  11155420: 900,
};
const DEFAULT_FINALITY_BLOCKS = 64;

export function defaultFinalityBlocks(chainId: number): number {
  return FINALITY_BLOCKS[chainId] ?? DEFAULT_FINALITY_BLOCKS;
}

/** A network's finalityBlocks: as configured, else the default of its chain id. */
export function finalityBlocksOf(network: Pick<NetworkConfig, 'chainId' | 'finalityBlocks'>): number {
  return network.finalityBlocks ?? defaultFinalityBlocks(network.chainId);
}

function isHttpsBase(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.search === '' && url.hash === '' && url.username === '';
  } catch {
    return false;
  }
}

/** Chain ids a wallet may sign in with: the configured networks', or the local demo chain's. */
export function signInChainIds(config: Config): number[] {
  return config.networks ? config.networks.map((network) => network.chainId) : [LOCAL_CHAIN_ID];
}

/** Names of the networks invoices may be paid on: the configured ones, or the local demo chain's. */
export function networkNames(config: Config): string[] {
  return config.networks ? config.networks.map((network) => network.name) : [LOCAL_NETWORK_NAME];
}

export const LOCAL_NETWORK_NAME = 'base-sepolia';
