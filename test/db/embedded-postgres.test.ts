import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { demoAccess, startService } from '../support/service-process.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'invoice-embedded-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function billing(baseUrl: string, access: { workspaceId: string; apiKey: string }) {
  const response = await fetch(`${baseUrl}/w/${access.workspaceId}/v1/billing`, {
    headers: { authorization: `Bearer ${access.apiKey}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function postmasterPid(): number {
  return Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/** Running, not a zombie: an orphan reparented to a PID 1 that does not reap stays a zombie. */
function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

describe('the embedded PostgreSQL', () => {
  it(
    'starts on a fresh DATA_DIR, prints a working key, and keeps data across a clean restart',
    { timeout: 120_000 },
    async () => {
      const first = await startService({ DATA_DIR: dataDir });
      const access = demoAccess(first.output());
      expect(first.output()).toContain('/portal');
      expect(first.output()).toContain(`curl -s -H "Authorization: Bearer ${access.apiKey}"`);
      expect(await billing(first.baseUrl, access)).toMatchObject({ status: 200, body: { creditBalance: 100 } });
      expect(await first.stop()).toBe(0);
      // A clean stop stops the server and removes its lock file.
      expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

      const second = await startService({ DATA_DIR: dataDir });
      expect(demoAccess(second.output())).toEqual(access);
      expect((await billing(second.baseUrl, access)).status).toBe(200);
      expect(await second.stop()).toBe(0);
    },
  );

  it('recovers after kill -9 of the service (orphaned server, stale lock files)', { timeout: 120_000 }, async () => {
    const crashed = await startService({ DATA_DIR: dataDir });
    const access = demoAccess(crashed.output());
    await crashed.kill9();
    const orphan = postmasterPid();
    expect(alive(orphan)).toBe(true); // the server outlived its parent

    const orphanChain = Number(readFileSync(path.join(dataDir, 'chain', 'anvil.pid'), 'utf8'));
    expect(alive(orphanChain)).toBe(true); // so did its local chain

    const recovered = await startService({ DATA_DIR: dataDir });
    expect(alive(orphan)).toBe(false);
    expect(alive(orphanChain)).toBe(false);
    expect(postmasterPid()).not.toBe(orphan);
    expect(demoAccess(recovered.output())).toEqual(access);
    expect(await billing(recovered.baseUrl, access)).toMatchObject({ status: 200, body: { creditBalance: 100 } });
    expect(await recovered.stop()).toBe(0);
  });

  it('refuses a second service on the same DATA_DIR with a clear message', { timeout: 120_000 }, async () => {
    const running = await startService({ DATA_DIR: dataDir });
    await expect(startService({ DATA_DIR: dataDir })).rejects.toThrow(
      /Another process \(pid \d+\) is running the embedded PostgreSQL/,
    );
    expect((await billing(running.baseUrl, demoAccess(running.output()))).status).toBe(200);
    expect(await running.stop()).toBe(0);
  });

  it('exits non-zero naming the variable when configuration is invalid', async () => {
    await expect(startService({ DATA_DIR: dataDir, NEW_WORKSPACE_CREDITS: 'lots' })).rejects.toThrow(
      /exited with 1[\s\S]*configuration error: NEW_WORKSPACE_CREDITS: expected a whole number/,
    );
  });
});
