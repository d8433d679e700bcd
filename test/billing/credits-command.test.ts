import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CREDITS_USAGE, parseCreditsCommand, runGrant } from '../../src/main/credits-command.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant } from '../support/app.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { app, services, database } = await createTestApp({ NEW_WORKSPACE_CREDITS: '10' });
const UNKNOWN = `ws_${'0'.repeat(26)}` as WorkspaceId;

async function ledgerOf(workspaceId: string) {
  return database.db
    .selectFrom('credit_ledger')
    .select(['kind', 'balance_change', 'balance_after', 'reason'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('seq')
    .execute();
}

/** `npm run credits -- …` as its own process, on the test database through DATABASE_URL. */
function credits(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/credits.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: database.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('parsing npm run credits', () => {
  const ws = `ws_${'a'.repeat(26)}`;

  it.each([
    [['grant', ws, '500', '--reason', 'refund of a double charge'], 'refund of a double charge'],
    [['grant', ws, '500', '--reason=goodwill'], 'goodwill'],
    [['--reason', 'first', 'grant', ws, '500'], 'first'],
  ])('reads %j', (args, reason) => {
    expect(parseCreditsCommand(args)).toEqual({ ok: true, command: { workspaceId: ws, credits: 500, reason } });
  });

  it.each([
    [[], 'no command given'],
    [['take', ws, '5', '--reason', 'x'], 'unknown command "take"'],
    [['grant', 'shop', '5', '--reason', 'x'], '"shop" is not a workspace id'],
    [['grant', ws, '12x', '--reason', 'x'], 'credits must be a whole number'],
    [['grant', ws, '0', '--reason', 'x'], 'credits must be a whole number'],
    [['grant', ws, '-5', '--reason', 'x'], 'credits must be a whole number'],
    [['grant', ws, '1.5', '--reason', 'x'], 'credits must be a whole number'],
    [['grant', ws, '1000000001', '--reason', 'x'], 'credits must be a whole number from 1 to 1000000000'],
    [['grant', ws, '5'], 'say why with --reason'],
    [['grant', ws, '5', '--reason', '  '], 'say why with --reason'],
    [['grant', ws, '5', '--reason'], '--reason needs a value'],
    [['grant', ws, '5', '--force', '--reason', 'x'], 'unknown option --force'],
    [['grant', ws, '5', '6', '--reason', 'x'], 'unexpected argument "6"'],
  ])('refuses %j, saying why and how to call it', (args, problem) => {
    const parsed = parseCreditsCommand(args);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).toContain(problem);
      expect(parsed.error).toContain(CREDITS_USAGE);
    }
  });
});

describe('granting credits by hand', () => {
  it('writes one manual_grant entry and the balance together, and reports the new balance', async () => {
    const shop = await merchant(app, ['invoices:create']);
    const outcome = await runGrant(services.billing, {
      workspaceId: shop.workspaceId as WorkspaceId,
      credits: 250,
      reason: 'pilot customer',
    });
    expect(outcome).toEqual({
      exitCode: 0,
      message: `granted 250 credits to ${shop.workspaceId}: balance 260, available 260`,
    });
    expect(await ledgerOf(shop.workspaceId)).toEqual([
      { kind: 'grant', balance_change: 10n, balance_after: 10n, reason: 'new workspace' },
      { kind: 'manual_grant', balance_change: 250n, balance_after: 260n, reason: 'pilot customer' },
    ]);
  });

  it('refuses an unknown workspace with exit code 2 and writes nothing', async () => {
    const before = await database.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    expect(await runGrant(services.billing, { workspaceId: UNKNOWN, credits: 5, reason: 'typo' })).toEqual({
      exitCode: 2,
      message: `no workspace ${UNKNOWN} in this database; nothing was granted`,
    });
    const after = await database.db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirst();
    expect(after).toEqual(before);
  });

  it(
    'runs as a command on DATABASE_URL: grants, then exits 2 for an unknown workspace or a bad number',
    { timeout: 60_000 },
    async () => {
      const shop = await merchant(app, ['invoices:create']);
      const granted = await credits('grant', shop.workspaceId, '40', '--reason', 'support ticket 1234');
      expect(granted).toMatchObject({ code: 0, stderr: '' });
      expect(granted.stdout.trim()).toBe(`granted 40 credits to ${shop.workspaceId}: balance 50, available 50`);
      expect((await ledgerOf(shop.workspaceId)).at(-1)).toEqual({
        kind: 'manual_grant',
        balance_change: 40n,
        balance_after: 50n,
        reason: 'support ticket 1234',
      });

      const unknown = await credits('grant', UNKNOWN, '40', '--reason', 'typo');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain(`no workspace ${UNKNOWN}`);

      const badNumber = await credits('grant', shop.workspaceId, 'forty', '--reason', 'typo');
      expect(badNumber.code).toBe(2);
      expect(badNumber.stderr).toContain('credits must be a whole number');
      expect(await ledgerOf(shop.workspaceId)).toHaveLength(2);
    },
  );
});
