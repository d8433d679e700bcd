import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrate } from '../../src/db/migrate.js';
import { databaseUrl } from './database.js';

/** One of the two servers: its DATABASE_URL, and stop and start at will. */
export interface Server {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const DATABASE = 'invoice';
/** Throwaway clusters: no flush to disk. */
const SETTINGS = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

/**
 * A PostgreSQL primary with the service's schema and a streaming replica of it, both real servers from
 * the embedded binaries, each in a directory of its own. The replica starts as a copy of the primary
 * taken while it was stopped, with `standby.signal` and `primary_conninfo`: what pg_basebackup would
 * write, without its running-server copy. Both are stopped after the file's tests.
 */
export async function primaryWithReplica(): Promise<{ primary: Server; replica: Server }> {
  const primaryDir = mkdtempSync(path.join(os.tmpdir(), 'replication-primary-'));
  const replicaDir = mkdtempSync(path.join(os.tmpdir(), 'replication-replica-'));
  const primary = server(primaryDir);
  const first = await startEmbeddedPostgres({ dataDir: primaryDir, database: DATABASE, settings: SETTINGS });
  const { pool, close } = openDatabase(first.connection, 1);
  await migrate(pool);
  await close();
  await first.stop();

  // `cp -a` keeps the files' owner: the server's own user, when the tests run as root.
  const copied = spawnSync('cp', ['-a', first.clusterDir, path.join(replicaDir, 'postgres')], { encoding: 'utf8' });
  if (copied.status !== 0) throw new Error(`copying the cluster failed: ${copied.stderr}`);
  const replicaCluster = path.join(replicaDir, 'postgres');
  writeFileSync(path.join(replicaCluster, 'standby.signal'), '');
  appendFileSync(
    path.join(replicaCluster, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=${first.connection.host} port=${first.connection.port} user=${first.connection.user} application_name=replica'\n`,
  );
  rmSync(path.join(replicaCluster, 'postmaster.pid'), { force: true });
  if (process.getuid?.() === 0)
    spawnSync('chown', ['--reference', first.clusterDir, path.join(replicaCluster, 'standby.signal')]);

  const replica = server(replicaDir);
  await primary.start();
  await replica.start();
  afterAll(async () => {
    await replica.stop();
    await primary.stop();
    rmSync(primaryDir, { recursive: true, force: true });
    rmSync(replicaDir, { recursive: true, force: true });
  });
  return { primary, replica };
}

function server(dataDir: string): Server & { url: string } {
  let running: EmbeddedPostgres | undefined;
  let url = '';
  return {
    get url() {
      return url;
    },
    async start() {
      running = await startEmbeddedPostgres({ dataDir, database: DATABASE, settings: SETTINGS });
      url = databaseUrl(running.connection, DATABASE);
    },
    async stop() {
      await running?.stop();
      running = undefined;
    },
  };
}
