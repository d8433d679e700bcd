import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './service-process.js';

/** Where Debian's package puts it (`apt-get install pgbouncer`; `npm test` installs it when missing). */
const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((candidate) => existsSync(candidate));

export interface PgBouncer {
  /** A DATABASE_URL through the pooler. */
  readonly url: string;
  /** Everything it logged so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real pgbouncer in transaction pooling mode in front of `database` on a PostgreSQL server reached
 * through its unix socket (`server.host` is the socket directory). It refuses to run as root, so as root it
 * runs as the `postgres` user, which owns the embedded server's socket.
 */
export async function startPgBouncer(
  server: { host: string; port: number; user: string },
  database: string,
  poolSize = 20,
): Promise<PgBouncer> {
  if (!BINARY) throw new Error('pgbouncer is not installed: apt-get install -y pgbouncer (npm test does it as root)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pgbouncer-'));
  chmodSync(dir, 0o755);
  const runAs = process.getuid?.() === 0 ? userIds('postgres') : undefined;
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  const port = await freePort();
  const users = path.join(dir, 'users.txt');
  writeFileSync(users, `"${server.user}" ""\n`);
  const ini = path.join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `${database} = host=${server.host} port=${server.port} dbname=${database} user=${server.user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 1000',
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  for (const file of [users, ini]) if (runAs) chownSync(file, runAs.uid, runAs.gid);
  const child = spawn(BINARY, [ini], { stdio: ['ignore', 'pipe', 'pipe'], ...runAs });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `postgresql://${server.user}@127.0.0.1:${port}/${database}`;

  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`pgbouncer did not start: ${(error as Error).message}\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      process.off('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function userIds(name: string): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) throw new Error(`no user ${name} to run pgbouncer as`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
