import { MAX_GRANT_CREDITS, type BillingService } from '../modules/billing/index.js';
import { AppError } from '../shared/errors.js';
import type { WorkspaceId } from '../shared/ids.js';

export const CREDITS_USAGE = 'usage: npm run credits -- grant <workspace-id> <credits> --reason "<why>"';

export interface GrantCommand {
  readonly workspaceId: WorkspaceId;
  readonly credits: number;
  readonly reason: string;
}

export type Parsed =
  { readonly ok: true; readonly command: GrantCommand } | { readonly ok: false; readonly error: string };

/** What `npm run credits` prints and exits with: 0 done, 1 the database failed, 2 a bad command or an unknown workspace. */
export interface CommandOutcome {
  readonly exitCode: 0 | 1 | 2;
  readonly message: string;
}

const WORKSPACE_ID = /^ws_[0-9a-hjkmnp-tv-z]{26}$/;

/**
 * Reads `grant <workspace-id> <credits> --reason <why>` (or `--reason=<why>`). Checked before the
 * database is opened, so a typo costs no database start.
 */
export function parseCreditsCommand(args: readonly string[]): Parsed {
  const fail = (problem: string): Parsed => ({ ok: false, error: `${problem}\n${CREDITS_USAGE}` });
  const positional: string[] = [];
  let reason: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--reason') {
      if (i + 1 >= args.length) return fail('--reason needs a value');
      reason = args[++i];
    } else if (arg.startsWith('--reason=')) reason = arg.slice('--reason='.length);
    else if (arg.startsWith('--')) return fail(`unknown option ${arg}`);
    else positional.push(arg);
  }
  const [verb, workspaceId, credits, ...rest] = positional;
  if (verb !== 'grant') return fail(verb === undefined ? 'no command given' : `unknown command "${verb}"`);
  if (rest.length > 0) return fail(`unexpected argument "${rest[0]}"`);
  if (workspaceId === undefined || !WORKSPACE_ID.test(workspaceId))
    return fail(`"${workspaceId ?? ''}" is not a workspace id (ws_ followed by 26 characters)`);
  if (credits === undefined || !/^[0-9]+$/.test(credits) || Number(credits) < 1 || Number(credits) > MAX_GRANT_CREDITS)
    return fail(`credits must be a whole number from 1 to ${MAX_GRANT_CREDITS}, got "${credits ?? ''}"`);
  if (reason === undefined || reason.trim() === '') return fail('say why with --reason "<why>"');
  return { ok: true, command: { workspaceId: workspaceId as WorkspaceId, credits: Number(credits), reason } };
}

/** Grants the credits: one `manual_grant` ledger entry and the balance, in one transaction. */
export async function runGrant(billing: BillingService, command: GrantCommand): Promise<CommandOutcome> {
  try {
    const after = await billing.grant(command.workspaceId, command.credits, command.reason);
    return {
      exitCode: 0,
      message: `granted ${command.credits} credits to ${command.workspaceId}: balance ${after.creditBalance}, available ${after.availableCredits}`,
    };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === 'not_found')
      return { exitCode: 2, message: `no workspace ${command.workspaceId} in this database; nothing was granted` };
    return { exitCode: 2, message: `${error.message} Nothing was granted.` };
  }
}
