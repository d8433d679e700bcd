import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { demoAccess, startService, type ServiceProcess } from '../support/service-process.js';

const PROJECT = fileURLToPath(new URL('../../', import.meta.url));
const runningAsRoot = process.getuid?.() === 0;

// A clone in a home directory of mode 0700, as /root is: the project's files copied, node_modules
// hard-linked (the same files, reached only through the 0700 directory), nothing made traversable.
const root = mkdtempSync(path.join(os.tmpdir(), 'invoice-root-home-'));
chmodSync(root, 0o755);
const home = path.join(root, 'home');
mkdirSync(home, { mode: 0o700 });
const clone = path.join(home, 'invoice-service');
mkdirSync(clone, { mode: 0o755 });
for (const entry of ['package.json', 'tsconfig.json', 'src', 'migrations', 'contracts'])
  cpSync(path.join(PROJECT, entry), path.join(clone, entry), { recursive: true });
execFileSync('cp', ['-al', path.join(PROJECT, 'node_modules'), path.join(clone, 'node_modules')]);
/** Stands in for /var/lib/invoice-service. */
const systemDir = path.join(root, 'var-lib');

let service: ServiceProcess | undefined;
afterAll(async () => {
  await service?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function billing(baseUrl: string, output: string): Promise<number> {
  const { workspaceId, apiKey } = demoAccess(output);
  const response = await fetch(`${baseUrl}/w/${workspaceId}/v1/billing`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return response.status;
}

it(
  'npm start works from a clone in a 0700 home directory, and keeps its data across restarts',
  { timeout: 180_000 },
  async () => {
    const env = { EMBEDDED_SYSTEM_DIR: systemDir };
    service = await startService(env, undefined, clone);
    const first = service.output();
    expect(await billing(service.localUrl, first)).toBe(200);
    expect(await service.stop()).toBe(0);

    service = await startService(env, undefined, clone);
    const second = service.output();
    // The same cluster (the demo workspace and its key from the first start) and the same copy.
    expect(demoAccess(second)).toEqual(demoAccess(first));
    expect(await billing(service.localUrl, second)).toBe(200);
    expect(await service.stop()).toBe(0);
    service = undefined;

    expect(statSync(home).mode & 0o777).toBe(0o700);
    const moved = (output: string) => output.split('\n').filter((line) => line.startsWith('PostgreSQL '));
    if (runningAsRoot) {
      expect(moved(first)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^PostgreSQL binaries copied to ${systemDir}/postgres-[0-9a-f]{16}: user "postgres" cannot enter ${home} \\(mode 0700\\)$`,
          ),
        ),
        expect.stringMatching(
          new RegExp(
            `^PostgreSQL cluster kept in ${systemDir}/clusters/[0-9a-f]{16}/postgres: user "postgres" cannot enter ${home} \\(mode 0700\\), above DATA_DIR$`,
          ),
        ),
      ]);
      expect(moved(second)).toEqual(moved(first));
    } else {
      // A normal user runs the server as itself: nothing needs to move.
      expect(moved(first)).toEqual([]);
    }
  },
);
