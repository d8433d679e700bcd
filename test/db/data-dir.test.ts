import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'invoice-datadir-'));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const runningAsRoot = process.getuid?.() === 0;

it('starts in a DATA_DIR created with mode 0700', { timeout: 60_000 }, async () => {
  const dataDir = path.join(root, 'private');
  mkdirSync(dataDir, { mode: 0o700 });
  const server = await startEmbeddedPostgres({ dataDir, database: 'invoice', settings: { fsync: 'off' } });
  await server.stop();
});

it('explains which directory blocks the unprivileged server user', { timeout: 60_000 }, async () => {
  const locked = path.join(root, 'locked');
  mkdirSync(locked, { mode: 0o700 });
  const attempt = startEmbeddedPostgres({
    dataDir: path.join(locked, 'data'),
    database: 'invoice',
    settings: { fsync: 'off' },
  });
  if (runningAsRoot) {
    // As root the server runs as "postgres", which cannot enter a root-owned 0700 directory.
    await expect(attempt).rejects.toThrow(`cannot enter ${locked} (mode 0700)`);
  } else {
    // A normal user runs the server as itself and owns the directory: nothing blocks it.
    await (await attempt).stop();
  }
});
